/**
 * The position audit's wiring (moved out of ./create-trader.ts; createTrader wires it): the
 * PositionAuditor (src/engine/position-audit.ts) over the trader's ledger (the store's positions,
 * its unsettled fills, the fills seen by token), the engine's markets and books, and the fleet's
 * ledgers; the audit while trading, which logs what it leaves to another member and then runs the
 * collateral housekeeping; and the member's ledger figures a fleet publishes.
 *
 * The venue's holdings are the truth: the start audit (in createTrader's reconciliation) and these
 * make the ledger follow them.
 */
import type { Clock } from '../core/clock.ts';
import type { ConditionId, TokenId } from '../core/ids.ts';
import { formatAmount } from '../core/units.ts';
import type { Venue } from '../core/venue.ts';
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
  /** A token's mid when the engine does not mirror its book (e.g. the venue's midpoint). */
  mid?(tokenId: string): Promise<number | undefined>;
  /** Each adjustment recorded (the daemon logs and counts it). */
  onAdjust?(a: PositionAdjustment): void;
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
  const auditor =
    audit === undefined || venue.holdings === undefined
      ? undefined
      : new PositionAuditor({
          venue,
          now: () => clock.now(),
          ledger: {
            positions: () => store.positions(),
            unsettledFills,
            fillCount: (t) => tokenFills.get(t) ?? 0,
            recordAdjustment: (a) => {
              store.recordAdjustment({ ...a, at: clock.now() });
              fleetLedger?.changed();
            },
          },
          ...(fleetLedger !== undefined && fleet !== undefined
            ? {
                fleet: {
                  others: () => fleetLedger.others(),
                  // booked by the member holding the token's market now: once fleet-wide
                  books: (_t: string, m: string) => fleet.quotable(m as ConditionId),
                },
              }
            : {}),
          markets: {
            pair: (t) => {
              const m = engine()?.state.marketOf(t as TokenId);
              const info = m === undefined ? undefined : engine()?.state.market(m);
              if (info === undefined) return undefined;
              const other = info.tokens[0].tokenId === t ? info.tokens[1].tokenId : info.tokens[0].tokenId;
              return { market: info.market, other };
            },
            winner: (m) => engine()?.state.winner(m as ConditionId),
          },
          mid: async (t) => {
            const b = engine()?.state.book(t as TokenId);
            if (b?.mid != null) return Math.round(b.mid);
            return audit.mid?.(t);
          },
          ...(audit.activity ? { activity: (since: number) => audit.activity!(since) } : {}),
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
