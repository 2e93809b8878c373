/**
 * Request-budget accounting of the simulated venue: every request our orders and cancels would
 * have made (POST /orders, DELETE /orders, DELETE /cancel-all) is counted against the spec's
 * section-8 rules (src/core/rate-limits.ts: `general`, `clob`, and the endpoint's burst and
 * sustained windows), so a backtest report can show "orders and cancels against the budgets": per
 * rule, the requests made, the most seen in any one sliding window, and how many requests found
 * their window already full (the live venue would have answered 429, or our budgets would have
 * made the bot wait): `record` says how long such a request waits, and the backtest's venue holds
 * it that long in virtual time, as the live budgets would. Pure: times are passed in.
 */
import { resolveRateRules, ruleNamesFor, type RateRule, type RateRuleOverrides } from '../../core/rate-limits.ts';

/** The use of one rate rule over a run. */
export interface BudgetUse {
  readonly rule: string;
  readonly limit: number;
  readonly windowMs: number;
  /** Requests counted by the rule. */
  readonly requests: number;
  /** Most requests in any one window (compare with `limit`). */
  readonly peak: number;
  /** Requests that found their window full (or others waiting before them) and waited for room. */
  readonly over: number;
}

/** Requests in a sliding window: a ring of send times (ms, non-decreasing). */
class Window {
  private times = new Float64Array(64);
  private head = 0;
  private n = 0;
  requests = 0;
  peak = 0;
  over = 0;
  constructor(readonly rule: RateRule) {}

  /**
   * The earliest time at or after `t` (and after this rule's last send: one line per rule, first
   * come first served) at which the window has room for one more request.
   */
  fit(t: number): number {
    const w = this.rule.windowMs;
    let at = this.n > 0 ? Math.max(t, this.times[(this.head + this.n - 1) % this.times.length]!) : t;
    // drop requests that left the window (at - windowMs, at]
    while (this.n > 0 && this.times[this.head]! <= at - w) {
      this.head = (this.head + 1) % this.times.length;
      this.n--;
    }
    // room once the request `limit` places back has left the window
    if (this.n >= this.rule.limit) at = this.times[(this.head + this.n - this.rule.limit) % this.times.length]! + w;
    return at;
  }

  /** Counts a request sent at `at` (not before `fit` said); `waited`: it found the window full. */
  add(at: number, waited: boolean): void {
    const w = this.rule.windowMs;
    while (this.n > 0 && this.times[this.head]! <= at - w) {
      this.head = (this.head + 1) % this.times.length;
      this.n--;
    }
    if (waited) this.over++;
    if (this.n === this.times.length) this.grow();
    this.times[(this.head + this.n) % this.times.length] = at;
    this.n++;
    this.requests++;
    if (this.n > this.peak) this.peak = this.n;
  }

  private grow(): void {
    const next = new Float64Array(this.times.length * 2);
    for (let i = 0; i < this.n; i++) next[i] = this.times[(this.head + i) % this.times.length]!;
    this.times = next;
    this.head = 0;
  }
}

/** The trading endpoints the simulated venue calls. */
export type SimEndpoint = 'POST /orders' | 'DELETE /orders' | 'DELETE /cancel-all';

/** Counts requests against the rate rules (see the module comment). */
export class BudgetMeter {
  private readonly windows = new Map<string, Window>();
  private readonly byEndpoint = new Map<string, Window[]>();

  /** @throws ConfigError on bad overrides (see resolveRateRules) */
  constructor(overrides: RateRuleOverrides = {}) {
    const rules = resolveRateRules(overrides, 'budgets');
    for (const ep of ['POST /orders', 'DELETE /orders', 'DELETE /cancel-all'] as const) {
      const [method, path] = ep.split(' ') as [string, string];
      const ws: Window[] = [];
      for (const name of ruleNamesFor('clob', method, path)) {
        let w = this.windows.get(name);
        if (w === undefined) this.windows.set(name, (w = new Window(rules.get(name)!)));
        ws.push(w);
      }
      this.byEndpoint.set(ep, ws);
    }
  }

  /**
   * Counts one request to `endpoint` at `t` (ms; non-decreasing). Returns how long it must wait
   * (ms) before a client keeping to the rules would send it: 0 while every window has room, else
   * until the fullest one frees a place (what the live bot's own budgets, src/api/http/budgets.ts,
   * would make it wait).
   */
  record(endpoint: SimEndpoint, t: number): number {
    const ws = this.byEndpoint.get(endpoint)!;
    let at = t;
    let full = 0; // bit i: rule i alone would have made it wait
    for (let i = 0; i < ws.length; i++) {
      const f = ws[i]!.fit(t);
      if (f > t) full |= 1 << i;
      if (f > at) at = f;
    }
    for (let i = 0; i < ws.length; i++) ws[i]!.add(at, (full & (1 << i)) !== 0);
    return at - t;
  }

  /** Every rule the trading endpoints count in, `general` first. */
  usage(): BudgetUse[] {
    const out: BudgetUse[] = [];
    for (const w of this.windows.values())
      out.push({
        rule: w.rule.name,
        limit: w.rule.limit,
        windowMs: w.rule.windowMs,
        requests: w.requests,
        peak: w.peak,
        over: w.over,
      });
    return out;
  }
}
