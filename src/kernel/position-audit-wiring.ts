/**
 * The position audit's wiring (moved out of ./create-trader.ts; createTrader wires it): the
 * PositionAuditor (src/engine/position-audit.ts) over the trader's ledger (the store's positions,
 * its unsettled fills, the fills seen by token), the engine's markets and books, and the fleet's
 * ledgers; the audit while trading, which logs what it leaves to another member and then runs the
 * collateral housekeeping; and the member's ledger figures a fleet publishes.
 *
 * The venue's holdings are the truth: the start audit (in createTrader's reconciliation) and these
 * make the ledger follow them. A difference in a market the engine does not follow (or knows
 * resolved without its winner) reads the venue's record of the market (`PositionAuditConfig.market`):
 * its pair and winner price a redeem at the payout.
 */
import type { Clock } from '../core/clock.ts';
import type { ConditionId, TokenId } from '../core/ids.ts';
import { formatAmount, type Pips } from '../core/units.ts';
import type { Holdings, Venue } from '../core/venue.ts';
import type { Engine } from '../engine/loop.ts';
import {
  PositionAuditor,
  type ActivityKind,
  type AdjustmentCause,
  type AuditReport,
  type PositionAdjustment,
} from '../engine/position-audit.ts';
import type { Store } from '../store/store.ts';
import type { TraderFleet, TraderLogger } from './types.ts';

/** One token of this member's ledger as the fleet sees it (Trader.ledgerFigures). Sizes micro-shares. */
export interface LedgerFigures {
  readonly market: string;
  readonly size: number;
  /** Signed size of the unsettled fills (BUY +, SELL −). */
  readonly unsettled: number;
  /** Fills of the token recorded since start. */
  readonly fills: number;
}

/** The position audit's settings (TraderOptions.positionAudit). */
export interface PositionAuditConfig {
  /** Period of the audits while running, ms (0: at start and on reconnects only). */
  readonly everyMs: number;
  /** The cause of the start audit's differences: a new ledger epoch's opening holdings. */
  readonly opening?: AdjustmentCause;
  /** Start of the current ledger epoch (unix ms): its unsettled fills are read from then on. */
  readonly epochStart?: number;
  /** The venue's account activity by token (the data API's), to name causes. */
  activity?(sinceMs: number): Promise<ReadonlyMap<string, ActivityKind>>;
  /**
   * The venue's record of a market (its two tokens, its winner), for the markets the engine does not
   * follow or knows resolved without its winner: a redeem there is priced at the payout.
   * @throws when the venue cannot tell
   */
  market?(market: ConditionId): Promise<AuditMarketRecord>;
  /** A token's mid when the engine does not mirror its book (e.g. the venue's midpoint). */
  mid?(tokenId: string): Promise<number | undefined>;
  /** Each adjustment recorded (the daemon logs and counts it). */
  onAdjust?(a: PositionAdjustment): void;
  /** Books the account's trades the ledger lacks (PositionAuditOptions.bookTrades). */
  bookTrades?(sinceMs: number): Promise<number>;
}

/** A market as the venue's record tells it (PositionAuditConfig.market). */
export interface AuditMarketRecord {
  readonly tokens: readonly [TokenId, TokenId];
  /** The winning token; null: resolved (closed) with no winner named; undefined: not resolved. */
  readonly winner: TokenId | null | undefined;
}

/** The trader's parts the position audit uses (createTrader's). */
export interface PositionAuditParts {
  readonly venue: Venue;
  readonly clock: Clock;
  /** The ledger: positions, unsettled fills; adjustments are recorded there. */
  readonly store: Store;
  /** Undefined: no auditor (the ledger figures are still given). */
  readonly config: PositionAuditConfig | undefined;
  /** A fleet member's view: the others' ledgers, which member books a difference. */
  readonly fleet: TraderFleet | undefined;
  /** The engine (made after this wiring: read when needed). */
  readonly engine: () => Engine | undefined;
  readonly log: TraderLogger;
  /** The logger of a component and market. */
  readonly marketLog: (component: string, market: string) => Pick<TraderLogger, 'debug' | 'info' | 'warn'>;
  /** Run after each audit while trading (the collateral housekeeping). */
  readonly afterAudit: () => void;
  /**
   * A position adjustment that could not be stored (disk full, I/O error): the trader's store failure
   * (the kill switch's `storeFailure`); the error is thrown on.
   */
  readonly storeFailed: (what: string, error: unknown) => void;
}

/** The position audit of a trader. */
export interface PositionAuditWiring {
  /** The auditor (undefined without a config or when the venue tells no holdings). */
  readonly auditor: PositionAuditor | undefined;
  /** One audit while trading (differences confirmed); undefined without an auditor or when it failed (logged). */
  readonly run: () => Promise<AuditReport | undefined>;
  /** Counts one fill of the token (the audit reads whether a token's fills moved). */
  readonly countFill: (tokenId: string) => void;
  /** This member's ledger by token (Trader.ledgerFigures). */
  readonly ledgerFigures: () => Record<string, LedgerFigures>;
  /** The venue's marks of the tokens held, pips, as of the last audit's read of the holdings (Trader.venueMarks). */
  readonly venueMarks: ReadonlyMap<TokenId, Pips>;
}

/**
 * Updates the venue's marks from a read of the holdings (Trader.venueMarks): the marks read replace
 * the last; a token no longer held loses its mark; when the venue's marks could not be read this time
 * (`marksRead: false`), the last marks of the tokens still held stay.
 */
export function keepVenueMarks(marks: Map<TokenId, Pips>, h: Holdings): void {
  const held = new Set<string>(h.tokens.map((t) => t.tokenId));
  for (const t of [...marks.keys()]) if (!held.has(t) || h.marksRead !== false) marks.delete(t);
  for (const t of h.tokens) if (t.mark !== undefined) marks.set(t.tokenId, t.mark);
}

/** Wires the position audit over the trader's parts (see the module comment). */
export function createPositionAuditWiring(parts: PositionAuditParts): PositionAuditWiring {
  const { venue, clock, store, fleet, engine, log, marketLog, afterAudit: keep } = parts;
  const audit = parts.config;
  const fleetLedger = fleet?.ledger;
  // (read from the oldest unsettled fill on: a fleet member reads them every 2 s to publish them)
  const unsettledFills = () => {
    const from = store.oldestUnsettledFillTime(audit?.epochStart ?? 0);
    if (from === undefined) return [];
    return store.fills(from).filter((f) => f.status === 'MATCHED' || f.status === 'MINED' || f.status === 'RETRYING');
  };
  const tokenFills = new Map<string, number>();
  // the venue's records of the markets the engine cannot tell about (a resolved one's is final)
  const records = new Map<string, AuditMarketRecord & { readonly market: ConditionId }>();
  const recordOf = new Map<string, AuditMarketRecord & { readonly market: ConditionId }>();
  const loadRecords = async (ms: readonly string[], fetch: (m: ConditionId) => Promise<AuditMarketRecord>) => {
    for (const m of ms) {
      const state = engine()?.state;
      const known = state?.market(m as ConditionId) !== undefined;
      const w = state?.winner(m as ConditionId);
      // followed and not resolved, or its winner known: the engine's facts are enough
      if (known && w !== null) continue;
      if (typeof records.get(m)?.winner === 'string') continue;
      let r: AuditMarketRecord;
      try {
        r = await fetch(m as ConditionId);
      } catch (err) {
        log.debug({ market: m, err: err instanceof Error ? err.message : String(err) }, 'market record not read');
        continue; // what the engine knows decides (a redeem is then priced at the mid)
      }
      const rec = { ...r, market: m as ConditionId };
      records.set(m, rec);
      for (const t of r.tokens) recordOf.set(t, rec);
    }
  };
  // the venue's marks of what the account holds, kept from each read of the holdings: a token no longer
  // held loses its mark; when the venue's marks could not be read this time, the last ones stay
  const venueMarks = new Map<TokenId, Pips>();
  const holdings = async (): Promise<Holdings> => {
    const h = await venue.holdings!();
    keepVenueMarks(venueMarks, h);
    return h;
  };
  const auditor =
    audit === undefined || venue.holdings === undefined
      ? undefined
      : new PositionAuditor({
          venue: { holdings },
          now: () => clock.now(),
          ledger: {
            positions: () => store.positions(),
            unsettledFills,
            fillCount: (t) => tokenFills.get(t) ?? 0,
            recordAdjustment: (a) => {
              try {
                store.recordAdjustment({ ...a, at: clock.now() });
              } catch (err) {
                parts.storeFailed(`a position adjustment (${a.cause}) could not be stored`, err);
                throw err;
              }
              fleetLedger?.changed();
            },
          },
          ...(fleetLedger !== undefined && fleet !== undefined
            ? {
                fleet: {
                  others: () => fleetLedger.others(),
                  ...(fleetLedger.unconfirmed !== undefined ? { unconfirmed: () => fleetLedger.unconfirmed!() } : {}),
                  // booked by the member holding the token's market now: once fleet-wide
                  books: (_t: string, m: string) => fleet.quotable(m as ConditionId),
                },
              }
            : {}),
          markets: {
            pair: (t) => {
              const m = engine()?.state.marketOf(t as TokenId);
              const info = m === undefined ? undefined : engine()?.state.market(m);
              if (info !== undefined) {
                const other = info.tokens[0].tokenId === t ? info.tokens[1].tokenId : info.tokens[0].tokenId;
                return { market: info.market, other };
              }
              const r = recordOf.get(t);
              if (r === undefined) return undefined;
              return { market: r.market, other: r.tokens[0] === t ? r.tokens[1] : r.tokens[0] };
            },
            // the engine's when it knows the winner, else the venue's record (fetched by load)
            winner: (m) => {
              const w = engine()?.state.winner(m as ConditionId);
              if (typeof w === 'string') return w;
              const r = records.get(m);
              return r === undefined || (w === null && r.winner === undefined) ? w : r.winner;
            },
            ...(audit.market !== undefined ? { load: (ms: readonly string[]) => loadRecords(ms, audit.market!) } : {}),
          },
          mid: async (t) => {
            const b = engine()?.state.book(t as TokenId);
            if (b?.mid != null) return Math.round(b.mid);
            return audit.mid?.(t);
          },
          ...(audit.activity ? { activity: (since: number) => audit.activity!(since) } : {}),
          ...(audit.bookTrades ? { bookTrades: (since: number) => audit.bookTrades!(since) } : {}),
          apply: (a) => engine()?.state.adjustPosition(a.tokenId, a.size, a.price),
        });
  const runAudit = async (): Promise<AuditReport | undefined> => {
    if (auditor === undefined) return undefined;
    try {
      const r = await auditor.audit({ confirm: true });
      for (const a of r.adjusted) audit?.onAdjust?.(a);
      for (const a of r.unbooked)
        marketLog('audit', a.market).info(
          { token: a.tokenId, size: formatAmount(a.size), cause: a.cause, note: a.note },
          'position difference on a market this member does not hold: left to its holder (fleet)',
        );
      for (const a of r.withheld ?? [])
        marketLog('audit', a.market).warn(
          { token: a.tokenId, size: formatAmount(a.size), note: a.note, members: fleetLedger?.unconfirmed?.() },
          "position difference not booked: the ledgers of members not running were put back from memory after the fleet's Redis lost them and may be stale; start those members (each publishes its own) or remove their records (HDEL, README Scaling out)",
        );
      keep();
      return r;
    } catch (err) {
      log.warn(
        { err: err instanceof Error ? err.message : String(err) },
        'position audit failed (retried next period)',
      );
      return undefined;
    }
  };
  return {
    auditor,
    venueMarks,
    run: runAudit,
    countFill: (t) => {
      tokenFills.set(t, (tokenFills.get(t) ?? 0) + 1);
    },
    ledgerFigures: () => {
      const out: Record<string, LedgerFigures> = {};
      const at = (t: string, market: string) => {
        let x = out[t];
        if (x === undefined) out[t] = x = { market, size: 0, unsettled: 0, fills: tokenFills.get(t) ?? 0 };
        return x as { market: string; size: number; unsettled: number; fills: number };
      };
      for (const p of store.positions()) at(p.tokenId, p.market).size += p.size;
      for (const f of unsettledFills()) at(f.tokenId, f.market).unsettled += f.side === 'BUY' ? f.size : -f.size;
      return out;
    },
  };
}
