/**
 * Our resting orders in the book the bot sees (option `showOwnOrders`), as the live market
 * channel shows them: each token keeps our shown size per price (its own orders and the
 * complement's, mirrored at 1 − p); recorded events are adjusted by it and every change of it is
 * announced as level changes. The matching never sees these sizes.
 */
import { priceLevel, type LevelChangeEvent, type PriceLevel } from '../../core/events.ts';
import { PRICE_SCALE, type Micro, type Pips, type Side } from '../../core/units.ts';
import type { Mutable, SimOrder, TokenState } from './sim-state.ts';

/** A best price of the book the bot sees: the recorded best and our shown best combined (null: none). */
export const comb = (recorded: number | null, own: number, bid: boolean): Pips | null => {
  const r = recorded ?? 0;
  if (own === 0) return r === 0 ? null : (r as Pips);
  if (r === 0) return own as Pips;
  return (bid ? Math.max(r, own) : Math.min(r, own)) as Pips;
};

/**
 * Our shown sizes and the levels they changed that are not announced yet. With `show` false the
 * sizes are still kept (the matching's crossing check reads the shown best prices) but nothing is
 * announced.
 */
export class ShownOwn {
  /** Levels whose shown size changed and are not announced yet: [token, bid side, price]. */
  readonly dirty: Array<[TokenState, boolean, number]> = [];
  constructor(readonly show: boolean) {}

  /** Our resting size at an order's price changed by `delta`: on its token and, mirrored, on the complement. */
  change(o: SimOrder, delta: number): void {
    if (delta === 0) return;
    const t = o.token;
    this.add(t, o.isBuy, o.price, delta);
    this.add(t.complement, !o.isBuy, PRICE_SCALE - o.price, delta);
  }

  /** Adds `delta` to the shown size of one level of `t` and updates the shown best price of that side. */
  add(t: TokenState, bid: boolean, p: number, delta: number): void {
    const map = bid ? t.shownBid : t.shownAsk;
    const v = (map.get(p) ?? 0) + delta;
    if (v > 0) map.set(p, v);
    else map.delete(p);
    let best = 0;
    for (const q of map.keys()) if (best === 0 || (bid ? q > best : q < best)) best = q;
    if (bid) t.shownBestBid = best;
    else t.shownBestAsk = best;
    if (this.show) this.dirty.push([t, bid, p]);
  }

  /**
   * Takes the changed levels as level changes of the tokens concerned (each level once), at `now`;
   * `snapshotting` is a token whose snapshot carries the changes (skipped, as are tokens awaiting
   * one); `inBatch`: a recorded batch is open, so its last recorded event closes ours. Empty: none.
   */
  drain(now: number, inBatch: boolean, snapshotting: TokenState | null): Array<Mutable<LevelChangeEvent>> {
    const dirty = this.dirty;
    const list = dirty.splice(0, dirty.length);
    // each (token, side, price) once: a few entries (an order placed or cancelled) are compared
    // with the ones before; a long list (a cancel-all) goes through a set
    const seen = list.length > 16 ? new Set<string>() : undefined;
    const out: Array<Mutable<LevelChangeEvent>> = [];
    for (let k = 0; k < list.length; k++) {
      const [t, bid, p] = list[k]!;
      if (seen !== undefined) {
        const key = `${t.id}|${bid ? 'b' : 'a'}|${p}`;
        if (seen.has(key)) continue;
        seen.add(key);
      } else {
        let dup = false;
        for (let j = 0; j < k && !dup; j++) {
          const d = list[j]!;
          dup = d[0] === t && d[1] === bid && d[2] === p;
        }
        if (dup) continue;
      }
      // a token awaiting its snapshot, or getting one now, is not told level by level
      if (t.awaiting || t === snapshotting || !t.book.snapshotted) continue;
      const side: Side = bid ? 'BUY' : 'SELL';
      out.push({
        type: 'level_change',
        venueTime: now,
        recvTime: now,
        market: t.market.info.market,
        tokenId: t.id,
        side,
        price: p as Pips,
        size: (t.book.sizeAt(side, p) + ((bid ? t.shownBid : t.shownAsk).get(p) ?? 0)) as Micro,
        bestBid: comb(t.book.bestBid(), t.shownBestBid, true),
        bestAsk: comb(t.book.bestAsk(), t.shownBestAsk, false),
        hash: t.hash,
        endOfBatch: false,
      });
    }
    if (out.length === 0) return out;
    // one batch of our own changes, closed by its last event (inside a recorded batch, that batch's last event closes it)
    out[out.length - 1]!.endOfBatch = !inBatch;
    return out;
  }
}

/**
 * Recorded levels (best first) with our shown sizes added. The input array is adjusted in place
 * (the decoder's arrays are fresh per event; the venue's own book copies its levels) and returned,
 * or, when we rest where it has no level, a new array of its levels and ours.
 */
export function withOwn(
  levels: readonly PriceLevel[],
  own: ReadonlyMap<number, number>,
  descending: boolean,
): PriceLevel[] {
  if (own.size === 0) return levels as PriceLevel[];
  // the usual case: every price we rest at is a recorded level (we rest behind others): add in place
  // of a copy (the event's arrays are the decoder's, fresh per event; the venue's own book copied
  // them). We rest at one or two prices per side: a scan of the levels per price (numbers compared)
  // is cheaper than a Map lookup per level.
  // (the map's keys, then get: iterating its entries destructures a fresh [key, value] per entry)
  const out = levels as PriceLevel[];
  let missing = 0;
  for (const p of own.keys()) {
    let i = 0;
    while (i < out.length && out[i]![0] !== p) i++;
    if (i < out.length) out[i] = priceLevel(p, out[i]![1] + own.get(p)!);
    else missing++;
  }
  if (missing === 0) return out;
  // we rest where the recorded book has no level (inside its spread, usually): those levels go at
  // their places, the levels being best first, as the decoder and the books give them (a Set, a
  // push and a sort per snapshot measured 15x the cost of the in-place case; a splice per level,
  // which copies the array each time, most of the rest); unsorted input (never seen) takes the
  // general path below
  let sorted = true;
  for (let i = 1; i < out.length && sorted; i++)
    sorted = descending ? out[i - 1]![0] > out[i]![0] : out[i - 1]![0] < out[i]![0];
  if (sorted) {
    // ours not recorded, best first (a few: an insertion sort), then merged with the recorded ones
    const mine: number[] = [];
    for (const p of own.keys()) {
      let i = 0;
      while (i < out.length && out[i]![0] !== p) i++;
      if (i < out.length) continue; // a recorded level: added above
      let j = mine.length;
      mine.push(p);
      while (j > 0 && (descending ? mine[j - 1]! < p : mine[j - 1]! > p)) {
        mine[j] = mine[j - 1]!;
        j--;
      }
      mine[j] = p;
    }
    const merged = new Array<PriceLevel>(out.length + mine.length);
    let i = 0;
    let j = 0;
    for (let k = 0; k < merged.length; k++) {
      const p = mine[j];
      if (p !== undefined && (i === out.length || (descending ? p > out[i]![0] : p < out[i]![0]))) {
        merged[k] = priceLevel(p, own.get(p)!);
        j++;
      } else merged[k] = out[i++]!;
    }
    return merged;
  }
  const seen = new Set<number>();
  for (let i = 0; i < out.length; i++) seen.add(out[i]![0]);
  for (const [p, s] of own) if (!seen.has(p)) out.push(priceLevel(p, s));
  out.sort(descending ? (a, b) => b[0] - a[0] : (a, b) => a[0] - b[0]);
  return out;
}
