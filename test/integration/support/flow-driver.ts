/**
 * A deterministic flow of orders on one market, placed in-process (`placeInternal` / `cancel`):
 * passive GTC orders around a drifting mid on both tokens and sides, cancels, and crossing FAK/FOK
 * orders, from several funded accounts. Used by the stream exactness test and the fan-out bench.
 */
import { Rng } from '../../../src/core/random.ts';
import type { PaperExchange } from '../../../src/exchange/exchange.ts';

export interface FlowOptions {
  seed?: number;
  accounts?: number;
  /** Price grid step in pips (the market's tick). */
  tickPips?: number;
  /** Live orders kept per account before cancels dominate. */
  maxLive?: number;
}

export class FlowDriver {
  readonly accounts: string[];
  private readonly rng: Rng;
  private readonly live: string[][];
  private seq = 0;
  private mid = 5000;
  /** Operations attempted, orders accepted, trades seen. */
  ops = 0;
  placed = 0;
  canceled = 0;
  private readonly tick: number;
  private readonly maxLive: number;

  constructor(
    private readonly ex: PaperExchange,
    private readonly tokens: readonly [string, string],
    o: FlowOptions = {},
  ) {
    this.rng = new Rng(o.seed ?? 1);
    this.tick = o.tickPips ?? 100;
    this.maxLive = o.maxLive ?? 60;
    const n = o.accounts ?? 4;
    const tag = (o.seed ?? 1).toString(16).padStart(4, '0');
    this.accounts = Array.from({ length: n }, (_, i) => `0x${tag}${'f'.repeat(32)}${i.toString(16).padStart(4, '0')}`);
    this.live = this.accounts.map(() => []);
    for (const a of this.accounts) {
      ex.fund(a, 10_000_000 * 1_000_000);
      ex.setTokens(a, tokens[0], 10_000_000 * 1_000_000);
      ex.setTokens(a, tokens[1], 10_000_000 * 1_000_000);
    }
  }

  private price(offsetTicks: number): number {
    const p = Math.round(this.mid / this.tick) * this.tick + offsetTicks * this.tick;
    return Math.min(10_000 - this.tick, Math.max(this.tick, p));
  }

  /** One random operation. */
  step(): void {
    const r = this.rng;
    this.ops++;
    if (r.next() < 0.02) this.mid = Math.min(8000, Math.max(2000, this.mid + (r.next() < 0.5 ? -1 : 1) * this.tick));
    const ai = r.int(0, this.accounts.length - 1);
    const account = this.accounts[ai]!;
    const live = this.live[ai]!;
    const x = r.next();
    const tokenIdx = r.next() < 0.5 ? 0 : 1;
    const tokenId = this.tokens[tokenIdx]!;
    const side = r.next() < 0.5 ? 'BUY' : 'SELL';
    // prices on the token's own scale: the NO token's mid is 1 - mid
    const tokMid = (off: number) => (tokenIdx === 0 ? this.price(off) : 10_000 - this.price(-off));
    const size = (5 + r.int(0, 20)) * 1_000_000;
    const cancelBias = live.length > this.maxLive ? 0.6 : 0.3;
    if (x < cancelBias && live.length > 0) {
      const k = r.int(0, live.length - 1);
      const id = live[k]!;
      live[k] = live[live.length - 1]!;
      live.pop();
      if (this.ex.cancel(account, [id]).canceled.length) this.canceled++;
      return;
    }
    const id = `flow-${this.rng.int(0, 0xffff).toString(16)}-${++this.seq}`;
    if (x < 0.85) {
      // passive-ish: a few ticks away from the mid on its side (sometimes through it: a cross)
      const off = r.int(-2, 8) * (side === 'BUY' ? -1 : 1);
      const res = this.ex.placeInternal({ id, account, tokenId, side, price: tokMid(off), size, type: 'GTC' });
      if (res.ok) {
        this.placed++;
        if (res.status === 'live') live.push(id);
      }
    } else {
      // aggressive: FAK or FOK through the book
      const off = r.int(2, 6) * (side === 'BUY' ? 1 : -1);
      const res = this.ex.placeInternal({
        id,
        account,
        tokenId,
        side,
        price: tokMid(off),
        size,
        type: r.next() < 0.7 ? 'FAK' : 'FOK',
      });
      if (res.ok) this.placed++;
    }
  }

  /** Cancels every live order of the flow's accounts. */
  cancelAll(): void {
    for (const a of this.accounts) this.ex.cancelAll(a);
    for (const l of this.live) l.length = 0;
  }
}
