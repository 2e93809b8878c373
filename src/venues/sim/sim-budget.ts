/**
 * Request-budget accounting of the simulated venue: every request our orders and cancels would
 * have made (POST /orders, DELETE /orders, DELETE /cancel-all) is counted against the spec's
 * section-8 rules (src/core/rate-limits.ts: `general`, `clob`, and the endpoint's burst and
 * sustained windows), so a backtest report can show "orders and cancels against the budgets": per
 * rule, the requests made, the most seen in any one sliding window, and how many requests found
 * their window already full (the live venue would have answered 429, or our budgets would have
 * made the bot wait). Pure: times are passed in.
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
  /** Requests that found `limit` already used in their window (would have been refused or delayed). */
  readonly over: number;
}

/** Requests in a sliding window: a ring of times (ms). */
class Window {
  private times = new Float64Array(64);
  private head = 0;
  private n = 0;
  requests = 0;
  peak = 0;
  over = 0;
  constructor(readonly rule: RateRule) {}

  add(t: number): void {
    const w = this.rule.windowMs;
    // drop requests that left the window (t - windowMs, t]
    while (this.n > 0 && this.times[this.head]! <= t - w) {
      this.head = (this.head + 1) % this.times.length;
      this.n--;
    }
    if (this.n >= this.rule.limit) this.over++;
    if (this.n === this.times.length) this.grow();
    this.times[(this.head + this.n) % this.times.length] = t;
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

  /** Counts one request to `endpoint` at `t` (ms; non-decreasing). */
  record(endpoint: SimEndpoint, t: number): void {
    for (const w of this.byEndpoint.get(endpoint)!) w.add(t);
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
