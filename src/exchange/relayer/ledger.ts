/**
 * The paper exchange's relayer: split, merge, redeem and the neg-risk conversion, the operations the
 * public service performs on chain through its relayer's `/submit` (signed wallet transactions).
 * Here a typed request applies them to the matching engine's balance ledger (exact micro-units,
 * available balances only, all or nothing), keeps the position book's cost basis in step, and
 * records each one as a confirmed transaction: `GET /transaction` and the data API's activity
 * read it back.
 *
 * Applied through the exchange's `relayer` command (journaled with --db), so a restored exchange
 * has the same balances and the same transactions with the same ids. Pure apart from the state it
 * owns: time comes with the command.
 */
import { keccak256, toUtf8Bytes } from 'ethers';
import { PRICE_SCALE } from '../../core/units.ts';
import type { PositionBook } from '../accounts/positions.ts';
import type { LiveMarketState, MarketMeta } from '../markets.ts';
import type { MatchingEngine } from '../matching/engine.ts';
import type { PositionOpCode } from '../matching/types.ts';
import type { RelayerOp, RelayerOutcome, RelayerTx } from './types.ts';

/** A market as the ledger reads it (the exchange's MarketEntry). */
interface MarketEntry {
  readonly meta: MarketMeta;
  readonly state: LiveMarketState;
}

/** What the ledger reads of the exchange. */
export interface RelayerDeps {
  readonly engine: MatchingEngine;
  readonly positions: PositionBook;
  market(conditionId: string): MarketEntry | undefined;
  listMarkets(): MarketEntry[];
}

/** The relayer's transactions and the application of its operations. */
export class RelayerLedger {
  readonly #deps: RelayerDeps;
  readonly #txs: RelayerTx[] = [];
  readonly #byId = new Map<string, RelayerTx>();
  readonly #byAccount = new Map<string, RelayerTx[]>();

  constructor(deps: RelayerDeps) {
    this.#deps = deps;
  }

  /** Apply one operation of `account` at time `t` (unix ms). Nothing changes when it is refused. */
  apply(account: string, op: RelayerOp, t: number): RelayerOutcome {
    const { engine, positions } = this.#deps;
    const first = op.conditionIds[0] ?? '';
    const entry = this.#deps.market(first);
    if (entry === undefined) return refuse('MARKET_NOT_FOUND', `unknown market ${first}`);
    const cid = entry.meta.conditionId;
    const [yes, no] = entry.meta.tokens;
    let r: ReturnType<MatchingEngine['split']>;
    let group: MarketEntry[] = [];
    switch (op.type) {
      case 'SPLIT':
        r = engine.split(account, cid, op.amount ?? 0, t);
        if (r.ok) positions.split(account, yes, no, op.amount!, this.#yesMark(entry));
        break;
      case 'MERGE':
        r = engine.merge(account, cid, op.amount ?? 0, t);
        if (r.ok) positions.merge(account, yes, no, op.amount!, this.#yesMark(entry));
        break;
      case 'REDEEM':
        r = engine.redeem(account, cid, op.amount, t);
        if (r.ok)
          for (const d of r.tokens)
            positions.redeem(account, d.tokenId, -d.delta, d.tokenId === entry.state.winningToken ? -d.delta : 0);
        break;
      case 'CONVERT': {
        const ids = op.conditionIds.map((c) => this.#deps.market(c)?.meta.conditionId ?? c);
        group = this.#eventOf(entry);
        r = engine.convert(
          account,
          ids,
          group.map((m) => m.meta.conditionId),
          op.amount ?? 0,
          t,
        );
        if (r.ok) {
          const out = group.filter((m) => ids.includes(m.meta.conditionId)).map((m) => m.meta.tokens[1]);
          const inTokens = group.filter((m) => !ids.includes(m.meta.conditionId)).map((m) => m.meta.tokens[0]);
          positions.convert(account, out, inTokens, op.amount!, r.collateral);
        }
        break;
      }
      default: {
        const never: never = op.type;
        throw new Error(`unknown relayer operation ${String(never)}`);
      }
    }
    if (!r.ok) return refuse(r.code, r.message);
    const seq = this.#txs.length + 1;
    const h = keccak256(toUtf8Bytes(`mmkit-relayer:${seq}:${account}:${t}`));
    const id = `${h.slice(2, 10)}-${h.slice(10, 14)}-4${h.slice(15, 18)}-8${h.slice(19, 22)}-${h.slice(22, 34)}`;
    const redeemed = op.type === 'REDEEM' ? r.collateral : undefined;
    const tx: RelayerTx = {
      id,
      hash: keccak256(toUtf8Bytes(`mmkit-relayer-tx:${id}`)),
      seq,
      account,
      type: op.type,
      conditionId: cid,
      conditionIds: op.type === 'CONVERT' ? op.conditionIds.map((c) => this.#deps.market(c)!.meta.conditionId) : [cid],
      amount: redeemed ?? op.amount!,
      collateral: r.collateral,
      tokens: r.tokens,
      at: t,
    };
    this.#txs.push(tx);
    this.#byId.set(id, tx);
    let list = this.#byAccount.get(account);
    if (list === undefined) this.#byAccount.set(account, (list = []));
    list.push(tx);
    return { ok: true, tx };
  }

  /** One transaction by id. */
  get(id: string): RelayerTx | undefined {
    return this.#byId.get(id);
  }

  /** The account's transactions, oldest first. */
  of(account: string): readonly RelayerTx[] {
    return this.#byAccount.get(account) ?? [];
  }

  /** Every transaction, oldest first. */
  all(): readonly RelayerTx[] {
    return this.#txs;
  }

  /** The neg-risk markets of the market's event, in listing order (just the market without an event). */
  #eventOf(entry: MarketEntry): MarketEntry[] {
    const ev = entry.meta.eventId;
    if (ev === undefined || ev === '' || !entry.meta.negRisk) return [entry];
    return this.#deps.listMarkets().filter((m) => m.meta.negRisk && m.meta.eventId === ev);
  }

  /** The YES price a split or merge is booked at: the resolution, else the mid, else 0.5 (pips). */
  #yesMark(entry: MarketEntry): number {
    const s = entry.state;
    if (s.status === 'resolved') return s.winningToken === entry.meta.tokens[0] ? PRICE_SCALE : 0;
    const b = this.#deps.engine.bestBidAsk(entry.meta.tokens[0]);
    if (b.bid !== null && b.ask !== null) return Math.round((b.bid + b.ask) / 2);
    return PRICE_SCALE / 2;
  }
}

/** HTTP status of each refusal: an unknown market is 404, everything else 400. */
function refuse(code: PositionOpCode, message: string): RelayerOutcome {
  return { ok: false, code, message, httpStatus: code === 'MARKET_NOT_FOUND' ? 404 : 400 };
}
