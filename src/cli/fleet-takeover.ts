/**
 * A fleet member taking a market over from another member (findings-2 F5, the takeover race; the
 * lease handover itself is src/fleet/member.ts, wired by `mmkit run` in src/cli/run-fleet.ts): what
 * the previous holder left there, resting or filled just before, is that member's, never this one's
 * own nor foreign. Apart from the join's wiring so the race it closes can be tested event by event
 * (test/unit/cli/fleet-takeover.test.ts).
 */
import type { ConditionId, OrderId } from '../core/ids.ts';
import type { Venue } from '../core/venue.ts';
import type { Trader } from '../kernel/create-trader.ts';

/** How far back a member taking a market over reads the account's fills (`previousHolderOrders`). */
export const TAKEOVER_FILLS_MS = 60_000;

/**
 * The previous holder's orders on `market`, when this member takes it over (findings-2 F5, the
 * takeover race): those resting there that are not `ours` (`open`: to cancel) and those of the
 * account's fills there since `sinceMs` that the executor does not know as its own (`filled`).
 * Both are marked as another member's in the executor, before the market is this member's: their
 * fills are the previous holder's, in its ledger. A fill of the previous holder's that matched just
 * before the takeover may reach this member after it (the user channel's delivery, its audit, a
 * later status of the trade), while its order id may not be in the fleet's registry yet (written
 * every 0.5 s, read every 1 s; never, when that member died first): without this, it would be
 * booked here as external too. A fill from outside the fleet on the market in that time is then
 * booked by nobody as a fill; the position audit of this member (the holder now) books the
 * difference. The fills that cannot be read (`onError`) leave the race open; the takeover goes on.
 * @throws what `venue.openOrders` throws (the takeover fails and is tried again)
 */
export async function previousHolderOrders(
  venue: Pick<Venue, 'openOrders' | 'fills'>,
  executor: Pick<Trader['executor'], 'fillSource' | 'markMemberOrders'>,
  market: ConditionId,
  o: { ours: ReadonlySet<OrderId>; sinceMs: number; onError?: (err: Error) => void },
): Promise<{ open: OrderId[]; filled: OrderId[] }> {
  const open = (await venue.openOrders()).filter((x) => x.market === market && !o.ours.has(x.id)).map((x) => x.id);
  let filled: OrderId[] = [];
  try {
    const fills = await venue.fills(o.sinceMs);
    // (the executor's own, of this run or an earlier one, stay its own)
    const ids = fills
      .filter((f) => f.market === market && executor.fillSource(f.orderId) !== 'bot')
      .map((f) => f.orderId);
    filled = [...new Set(ids)];
  } catch (e) {
    o.onError?.(e instanceof Error ? e : new Error(String(e)));
  }
  executor.markMemberOrders([...open, ...filled]);
  return { open, filled };
}

/**
 * The account's open orders and recent fills for the takeovers of one lease round, each read once
 * and reused for `ttlMs` (default 1 s): a round takes up to the member's whole share, and reading
 * both per market, in series, made 20 markets × 2 requests outlast the 5 s lease on a slow venue
 * (review 48 F1). A listing asked for a later `sinceMs` within the ttl is the earlier one (a superset:
 * fills a second older at most). A failed read is not kept.
 */
export function sharedListing(
  venue: Pick<Venue, 'openOrders' | 'fills'>,
  now: () => number,
  ttlMs = 1000,
): Pick<Venue, 'openOrders' | 'fills'> {
  const openOrders = memoFor(ttlMs, now, () => venue.openOrders());
  const fills = memoFor(ttlMs, now, (sinceMs: number) => venue.fills(sinceMs));
  return { openOrders: () => openOrders(), fills: (sinceMs) => fills(sinceMs) };
}

/** `read`'s promise reused for `ttlMs` after it was asked (its arguments then ignored); a rejected one is not kept. */
function memoFor<A extends unknown[], T>(
  ttlMs: number,
  now: () => number,
  read: (...args: A) => Promise<T>,
): (...args: A) => Promise<T> {
  let last: { at: number; p: Promise<T> } | undefined;
  return (...args) => {
    const t = now();
    if (last === undefined || t - last.at >= ttlMs) {
      const entry = { at: t, p: read(...args) };
      last = entry;
      entry.p.catch(() => {
        if (last === entry) last = undefined;
      });
    }
    return last.p;
  };
}
