/**
 * Instrumentation at the daemon's seams, without touching the engine or the executor:
 *
 *  - `instrumentVenue` wraps the Venue port the engine and the executor drive: market frames are
 *    seen as they arrive (the tick-to-order clock starts), place requests as they are handed to
 *    the venue (it stops; orders counted by outcome, post-only crossings apart too), cancels
 *    counted, failed requests counted by error code. Everything else passes through untouched (bound to the real venue).
 *  - `ObservedBudgets` is the transport's request budgets (src/api/http/budgets.ts) with every 429
 *    reported: pass it to createLiveVenue as `budgets`; the metrics read its stats() at scrape time.
 */
import { tap } from 'rxjs';
import { Budgets, type BudgetConfig, type BudgetGate } from '../api/http/budgets.ts';
import type { SignerGate } from '../api/http/signer-budget.ts';
import type { ApiName, HttpMethod } from '../api/http/types.ts';
import type { Clock } from '../core/clock.ts';
import { MmkitError } from '../core/errors.ts';
import type { TokenId } from '../core/ids.ts';
import type { CancelOutcome, PlaceOutcome, PreparedOrder, Venue } from '../core/venue.ts';
import { POST_ONLY_CROSSING, provesNotAccepted } from '../execution/executor.ts';
import type { DaemonMonitor } from './status.ts';

const codeOf = (e: unknown): string => (e instanceof MmkitError ? e.code : 'ERROR');

/**
 * The same venue, observed (see the module comment). The result is a Proxy: every member not
 * listed here is the real venue's, methods bound to it.
 */
export function instrumentVenue<V extends Venue>(venue: V, monitor: DaemonMonitor): V {
  const marketEvents: Venue['marketEvents'] = (tokenIds: readonly TokenId[]) =>
    venue.marketEvents(tokenIds).pipe(tap((e) => monitor.onMarketFrame(e)));
  const place = async (orders: readonly PreparedOrder[]): Promise<readonly PlaceOutcome[]> => {
    const seen = new Set<string>();
    for (const o of orders) {
      if (seen.has(o.request.market)) continue;
      seen.add(o.request.market);
      monitor.onPlaceRequest(o.request.market);
    }
    monitor.onOrders('placed', orders.length);
    let out: readonly PlaceOutcome[];
    try {
      out = await venue.place(orders);
    } catch (e) {
      monitor.onRequestError(codeOf(e));
      monitor.onOrders(provesNotAccepted(e) ? 'failed' : 'unknown', orders.length);
      throw e;
    }
    for (const r of out) {
      if (r.ok) monitor.onOrders(r.status);
      else {
        monitor.onOrders(r.code === 'UNKNOWN' ? 'unknown' : 'rejected');
        if (r.code === POST_ONLY_CROSSING) monitor.onPostOnlyRejected();
      }
    }
    return out;
  };
  const counted = (fn: () => Promise<CancelOutcome>) => async (): Promise<CancelOutcome> => {
    try {
      const out = await fn();
      monitor.onOrders('cancelled', out.canceled.length);
      return out;
    } catch (e) {
      monitor.onRequestError(codeOf(e));
      throw e;
    }
  };
  const overrides: Partial<Record<keyof Venue, unknown>> = {
    marketEvents,
    place,
    cancel: (ids: Parameters<Venue['cancel']>[0]) => counted(() => venue.cancel(ids))(),
    cancelAll: counted(() => venue.cancelAll()),
  };
  return new Proxy(venue, {
    get(target, prop) {
      if (typeof prop === 'string' && Object.hasOwn(overrides, prop)) return overrides[prop as keyof Venue];
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** Request budgets that report every 429 (by endpoint key, ids folded) before handling it. */
export class ObservedBudgets extends Budgets {
  readonly #on429: (endpoint: string) => void;

  /** @throws ConfigError as Budgets. `opts.gate`: shared windows (a fleet's), as Budgets. */
  constructor(
    config: BudgetConfig,
    clock: Clock,
    on429: (endpoint: string) => void,
    opts: { gate?: BudgetGate; signer?: SignerGate } = {},
  ) {
    super(config, clock, opts);
    this.#on429 = on429;
  }

  override onRateLimited(
    api: ApiName,
    method: HttpMethod,
    path: string,
    retryAfterMs: number,
    serverLimit?: number,
    layer?: 'window' | 'signer',
  ): string[] {
    try {
      this.#on429(this.endpointKey(api, method, path));
    } catch {
      /* metrics must not break the request path */
    }
    return super.onRateLimited(api, method, path, retryAfterMs, serverLimit, layer);
  }
}
