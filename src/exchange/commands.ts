/**
 * Every change to the paper exchange's state is a command: plain JSON data with the time it
 * happened. The exchange applies commands through one function, and the matching engine is
 * deterministic, so the journal of commands *is* the state: with --db, commands are appended to
 * SQLite and replayed on start, and the exchange comes back exactly as it was (orders, trades,
 * balances, keys, the world).
 */
import type { MarketMeta } from './markets.ts';
import type { CancelReason, NewOrder } from './matching/types.ts';
import type { RelayerOp } from './relayer/types.ts';
import type { RewardConfig } from '../core/rewards.ts';
import type { EpochPayout } from './rewards/ledger.ts';
import type { WorldStore } from './world/store.ts';
import type { ArticleRec, CommentRec, EventRec, ProfileRec, SeriesRec, SportRec, TagRec } from './world/model.ts';

export type Command =
  | { k: 'market'; meta: MarketMeta }
  | { k: 'event'; event: EventRec }
  | { k: 'tag'; tag: TagRec }
  | { k: 'series'; series: SeriesRec }
  | { k: 'sport'; sport: SportRec }
  | { k: 'article'; article: ArticleRec }
  | { k: 'profile'; profile: ProfileRec }
  | { k: 'comment'; comment: CommentRec }
  | { k: 'fund'; account: string; micro: number }
  | { k: 'setCollateral'; account: string; micro: number }
  | { k: 'setTokens'; account: string; tokenId: string; micro: number }
  | { k: 'key'; address: string; nonce: string }
  | { k: 'delkey'; apiKey: string }
  /** A read-only API key created for an address (the key derives from the server secret and the count). */
  | { k: 'rokey'; address: string }
  | { k: 'delrokey'; address: string; apiKey: string }
  /** A builder API key created for an address (derived like read-only keys: server secret and count). */
  | { k: 'bkey'; address: string }
  /** An address's live builder keys revoked (only `apiKey` when given). */
  | { k: 'revbkey'; address: string; apiKey?: string }
  /** An operator registers a funder (maker account) to a signer for proxy orders (signatureType 1/2). */
  | { k: 'funder'; signer: string; funder: string }
  /**
   * An address's dead-man switch armed (its first heartbeat, or the first since the switch fired) or
   * disarmed (the switch fired): replay rebuilds the armed set (accounts/dead-man.ts).
   */
  | { k: 'deadman'; address: string; armed: boolean }
  | { k: 'place'; order: NewOrder; builder?: string }
  | { k: 'cancel'; account: string; ids: string[]; reason: CancelReason }
  | { k: 'cancelAll'; account: string; reason: CancelReason }
  | { k: 'cancelMarket'; account: string; market?: string; tokenId?: string }
  | { k: 'advance' }
  | { k: 'tick'; conditionId: string; tickPips: number }
  | { k: 'close'; conditionId: string }
  | { k: 'resolve'; conditionId: string; winningToken: string }
  /** A relayer operation (split, merge, redeem, convert) of an account. */
  | { k: 'relayer'; account: string; op: RelayerOp }
  /** A market's liquidity reward config set (null: cleared): the world's, or an operator's (POST /admin/rewards). */
  | { k: 'rewardConfig'; conditionId: string; config: RewardConfig | null }
  /** A closed reward epoch: every scoring maker's row; the paid ones credited to collateral. */
  | ({ k: 'rewardPayout' } & EpochPayout);

export type TimedCommand = Command & { t: number };

/** Where applied commands go (the SQLite journal with --db; nothing in memory-only runs). */
export interface CommandSink {
  append(cmd: TimedCommand): void;
}

/** The commands that only add content the world serves (metadata and content APIs): no engine state. */
export type ContentCommand = Extract<Command, { k: 'event' | 'tag' | 'series' | 'sport' | 'article' | 'profile' }>;

/** Applies a content command to the world's store (the exchange's `apply` hands them here). */
export function applyContent(world: WorldStore, c: ContentCommand): void {
  switch (c.k) {
    case 'event':
      return world.putEvent(c.event);
    case 'tag':
      return world.addTag(c.tag);
    case 'series':
      return world.addSeries(c.series);
    case 'sport':
      return world.addSport(c.sport);
    case 'article':
      return world.addArticle(c.article);
    case 'profile':
      return world.putProfile(c.profile);
  }
}
