/**
 * A frozen copy of `quoteAt` (strategies/bands.ts) as it was before its allocation-free rewrite,
 * kept VERBATIM (only `export` and the name changed) as the reference the equivalence property test
 * (bands-quote-equivalence.test.ts) and the micro-benchmark compare the live function with. Do not
 * "fix" or optimise this copy: it is the definition of the expected output. If the bands rules
 * change on purpose, change both and say so in the commit.
 */
import type { LiveOrderView, QuoteIntent } from '../../../src/core/intents.ts';
import { LOT_MICRO, PRICE_SCALE, type Micro, type Pips } from '../../../src/core/units.ts';
import type { StrategyState } from '../../../src/strategy/api.ts';
import {
  agedOrders,
  ceilToTick,
  floorToTick,
  inventoryOf,
  lotsDown,
  type MarketTop,
} from '../../../src/strategy/quoting.ts';
import type { BandsConfig, MarketPlan } from '../../../strategies/bands.ts';

const lotDown = lotsDown;

/** A live order seen in YES prices. */
interface Own {
  readonly o: LiveOrderView;
  readonly bid: boolean;
  readonly yesPrice: number;
  readonly remaining: number;
  dist: number;
}

const EPS = 1e-6;

/** `quoteMarket` on a top already computed (the memo below computes it first). */
export function referenceQuoteAt(
  plan: MarketPlan,
  cfg: BandsConfig,
  state: StrategyState,
  t: MarketTop | null,
): QuoteIntent[] {
  if (t === null || t.mid === null || t.touchBid === null || t.touchAsk === null) return [];
  const top = { bid: t.touchBid, ask: t.touchAsk };
  const mid = t.mid;
  const both = cfg.tokens === 'both';
  const tick = plan.tick;
  const minSize = Math.max(plan.minSize, LOT_MICRO);
  const floorTo = floorToTick;
  const ceilTo = ceilToTick;

  // our live orders, in YES prices (aged ones are left out: execution cancels them)
  const live = state.openOrders(plan.market);
  const aged = agedOrders(live, state.now, cfg.maxOrderAgeMs);
  const agedAt = new Set<string>();
  const own: Own[] = [];
  for (const o of live) {
    const isYes = o.tokenId === plan.yes;
    if (!isYes && o.tokenId !== plan.no) continue;
    const remaining = o.originalSize - o.sizeMatched;
    if (remaining <= 0) continue;
    if (aged.has(o.id)) {
      agedAt.add(`${o.tokenId}|${o.side}|${o.price}`);
      continue;
    }
    const bid = isYes === (o.side === 'BUY');
    const yesPrice = isYes ? o.price : PRICE_SCALE - o.price;
    if (!isYes && !both) continue; // 'yes' mode: a NO order is never kept (but it is on the book)
    own.push({ o, bid, yesPrice, remaining, dist: 0 });
  }

  const inv = inventoryOf(state, plan, cfg.tokens);
  const yesHeld = inv.yes;
  const noHeld = inv.no;
  const net = inv.net;
  const halfMin = cfg.minSpread / 2;
  const ratio = cfg.maxPosition > 0 ? Math.max(-1, Math.min(1, net / cfg.maxPosition)) : 0;
  const center = mid - cfg.inventorySkew * ratio * tick;
  const cap = { bid: Math.max(0, cfg.maxPosition - net), ask: both ? Math.max(0, cfg.maxPosition + net) : yesHeld };
  let yesFree = yesHeld;
  let noFree = noHeld;

  // assign live orders to bands: nearest the mid first, each to the innermost band (of its side)
  // whose margin window holds it and whose maxAmount it still fits. A common mid move shifts every
  // order the same way, so the orders keep their bands even when one lands on a shared boundary.
  const nb = cfg.bands.length;
  // each band's target price (YES), or null when it falls outside [tick, 1 - tick]
  const target: (number | null)[] = new Array<number | null>(2 * nb).fill(null);
  for (let i = 0; i < nb; i++) {
    const m = cfg.bands[i]!.avgMargin;
    let bidP: number | null = Math.min(floorTo(center - m, tick), floorTo(center - halfMin, tick));
    if (bidP >= top.ask) bidP = cfg.postOnly === 'drop' ? null : floorTo(top.ask - tick, tick);
    target[i] = bidP !== null && bidP >= tick ? bidP : null;
    let askP: number | null = Math.max(ceilTo(center + m, tick), ceilTo(center + halfMin, tick));
    if (askP <= top.bid) askP = cfg.postOnly === 'drop' ? null : ceilTo(top.bid + tick, tick);
    target[nb + i] = askP !== null && askP <= PRICE_SCALE - tick ? askP : null;
  }
  const members: Own[][] = Array.from({ length: 2 * nb }, () => []);
  const load = new Array<number>(2 * nb).fill(0);
  for (const q of own) q.dist = q.bid ? center - q.yesPrice : q.yesPrice - center;
  own.sort((x, y) => x.dist - y.dist || x.yesPrice - y.yesPrice || (x.o.id < y.o.id ? -1 : x.o.id > y.o.id ? 1 : 0));
  for (const q of own) {
    if (q.yesPrice % tick !== 0) continue; // off the current tick: replace
    if (q.dist < halfMin - EPS) continue; // nearer the center than the minimum spread: replace
    for (let i = 0; i < nb; i++) {
      const b = cfg.bands[i]!;
      const slot = (q.bid ? 0 : nb) + i;
      // inside the margin window, or at the band's own target (a coarse tick can round it outside)
      const inside = (q.dist >= b.minMargin - EPS && q.dist <= b.maxMargin + EPS) || q.yesPrice === target[slot];
      if (!inside || load[slot]! + q.remaining > b.maxAmount) continue;
      members[slot]!.push(q);
      load[slot]! += q.remaining;
      break;
    }
  }

  // pass 1: keep what fits each band (inner bands first take the capacity; sells need the shares)
  const kept: QuoteIntent[][] = Array.from({ length: 2 * nb }, () => []);
  const keptAmount = new Array<number>(2 * nb).fill(0);
  for (const bid of [true, false]) {
    let capLeft = bid ? cap.bid : cap.ask;
    for (let i = 0; i < nb; i++) {
      const slot = (bid ? 0 : nb) + i;
      let cum = 0;
      for (const q of members[slot]!) {
        if (cum + q.remaining > capLeft) continue;
        if (q.o.side === 'SELL') {
          const isYes = q.o.tokenId === plan.yes;
          if (q.remaining > (isYes ? yesFree : noFree)) continue;
          if (isYes) yesFree -= q.remaining;
          else noFree -= q.remaining;
        }
        cum += q.remaining;
        kept[slot]!.push({ tokenId: q.o.tokenId, side: q.o.side, price: q.o.price, size: q.remaining as Micro });
      }
      keptAmount[slot] = cum;
      capLeft -= cum;
    }
    if (bid) cap.bid = capLeft;
    else cap.ask = capLeft;
  }

  // pass 2: top up under-full bands at avgMargin, routed to tokens
  const fresh: QuoteIntent[][] = Array.from({ length: 2 * nb }, () => []);
  for (const bid of [true, false]) {
    let capLeft = bid ? cap.bid : cap.ask;
    for (let i = 0; i < nb; i++) {
      const b = cfg.bands[i]!;
      const slot = (bid ? 0 : nb) + i;
      const have = keptAmount[slot]!;
      if (have >= b.minAmount && have > 0) continue;
      let need = b.avgAmount - have;
      if (need < minSize) {
        if (have + minSize > b.maxAmount) continue;
        need = minSize;
      }
      const size = lotDown(Math.min(need, capLeft));
      if (size < minSize) continue;
      const price = target[slot];
      if (price === null || price === undefined) continue;
      const out = fresh[slot]!;
      if (!both) {
        out.push({ tokenId: plan.yes, side: bid ? 'BUY' : 'SELL', price: price as Pips, size: size as Micro });
        if (!bid) yesFree -= size;
        capLeft -= size;
        continue;
      }
      // 'both': sell inventory of the token that expresses this side first, buy the other for the rest
      const free = bid ? noFree : yesFree;
      let sell = lotDown(Math.min(size, Math.max(0, free)));
      if (sell < minSize) sell = 0;
      const buy = size - sell;
      if (sell > 0) {
        out.push(
          bid
            ? { tokenId: plan.no, side: 'SELL', price: (PRICE_SCALE - price) as Pips, size: sell as Micro }
            : { tokenId: plan.yes, side: 'SELL', price: price as Pips, size: sell as Micro },
        );
        if (bid) noFree -= sell;
        else yesFree -= sell;
      }
      if (buy >= minSize) {
        out.push(
          bid
            ? { tokenId: plan.yes, side: 'BUY', price: price as Pips, size: buy as Micro }
            : { tokenId: plan.no, side: 'BUY', price: (PRICE_SCALE - price) as Pips, size: buy as Micro },
        );
      }
      capLeft -= sell + (buy >= minSize ? buy : 0);
    }
  }

  // assemble innermost first; a last guard against self-crossing (possible only with minMargin 0)
  let maxBid = -1;
  for (let s = 0; s < nb; s++)
    for (const q of [...kept[s]!, ...fresh[s]!]) maxBid = Math.max(maxBid, yesPriceOf(q, plan));
  const quotes: QuoteIntent[] = [];
  for (let i = 0; i < nb; i++) {
    for (const q of kept[i]!) quotes.push(q);
    for (const q of fresh[i]!) quotes.push(q);
    for (const q of kept[nb + i]!) if (yesPriceOf(q, plan) > maxBid) quotes.push(q);
    for (const q of fresh[nb + i]!) if (yesPriceOf(q, plan) > maxBid) quotes.push(q);
  }
  // while an aged order rests, nothing at its (token, side, price): the diff must not keep it
  return agedAt.size === 0 ? quotes : quotes.filter((q) => !agedAt.has(`${q.tokenId}|${q.side}|${q.price}`));
}

function yesPriceOf(q: QuoteIntent, plan: MarketPlan): number {
  return q.tokenId === plan.yes ? q.price : PRICE_SCALE - q.price;
}
