/**
 * Fault injection for reliability tests against the real thing. Off by default (no rules). Rules
 * are set at start (config) or at run time through the admin route, and say what goes wrong where:
 *
 *  - HTTP: `{ route, status }` answers 425/429/500/503 instead of serving (with `probability`),
 *    `{ route, latencyMs }` delays the answer. `route` is "*", an API prefix ("/clob"), a path
 *    ("/clob/order") or "METHOD /path" ("POST /clob/order"); a trailing "*" matches a prefix.
 *  - Streams (`stream`: market | user | rtds): `freeze` keeps sockets open and PONG answered but
 *    sends no data; `drop` closes every connection of that stream (and each new one after
 *    `dropAfterMs`, default at once); `latencyMs` delays every data frame.
 *  - `untilMs` (unix ms) ends a rule by itself.
 *
 * Decisions take the time and a random source as inputs, so tests are deterministic.
 */
import { Rng } from '../core/random.ts';

export type StreamName = 'market' | 'user' | 'rtds';

export interface FaultRule {
  id?: string;
  route?: string;
  status?: 425 | 429 | 500 | 503;
  latencyMs?: number;
  probability?: number; // 0..1, default 1
  stream?: StreamName;
  freeze?: boolean;
  drop?: boolean;
  dropAfterMs?: number;
  untilMs?: number;
}

export type FaultListener = (rules: readonly FaultRule[]) => void;

function routeMatches(pattern: string, method: string, path: string): boolean {
  if (pattern === '*') return true;
  let p = pattern;
  const sp = pattern.indexOf(' ');
  if (sp > 0) {
    if (pattern.slice(0, sp).toUpperCase() !== method.toUpperCase()) return false;
    p = pattern.slice(sp + 1);
  }
  if (p.endsWith('*')) return path.startsWith(p.slice(0, -1));
  return path === p || path.startsWith(p + '/');
}

export class FaultController {
  private rules: FaultRule[] = [];
  private readonly listeners = new Set<FaultListener>();
  private readonly rng: Rng;
  private seq = 0;

  constructor(
    private readonly now: () => number,
    seed = 1,
  ) {
    this.rng = new Rng(seed);
  }

  /** Replace all rules. @throws RangeError on an invalid rule. */
  set(rules: readonly FaultRule[]): FaultRule[] {
    for (const r of rules) validate(r);
    this.rules = rules.map((r) => ({ ...r, id: r.id ?? `f${++this.seq}` }));
    this.emit();
    return this.list();
  }
  add(rule: FaultRule): FaultRule {
    validate(rule);
    const r = { ...rule, id: rule.id ?? `f${++this.seq}` };
    this.rules.push(r);
    this.emit();
    return r;
  }
  remove(id: string): boolean {
    const n = this.rules.length;
    this.rules = this.rules.filter((r) => r.id !== id);
    if (this.rules.length !== n) this.emit();
    return this.rules.length !== n;
  }
  clear(): void {
    this.rules = [];
    this.emit();
  }
  list(): FaultRule[] {
    this.expire();
    return this.rules.map((r) => ({ ...r }));
  }
  /** Called with the rule list whenever it changes (streams use it to drop sockets at once). */
  onChange(fn: FaultListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** The fault to apply to an HTTP request, if any: a status to answer with and/or a delay. */
  http(method: string, path: string): { status?: number; latencyMs?: number } | undefined {
    if (this.rules.length === 0) return undefined;
    this.expire();
    let out: { status?: number; latencyMs?: number } | undefined;
    for (const r of this.rules) {
      if (r.stream !== undefined || r.route === undefined || !routeMatches(r.route, method, path)) continue;
      if (r.probability !== undefined && this.rng.next() >= r.probability) continue;
      out ??= {};
      if (r.latencyMs !== undefined) out.latencyMs = Math.max(out.latencyMs ?? 0, r.latencyMs);
      if (r.status !== undefined && out.status === undefined) out.status = r.status;
    }
    return out;
  }

  /** True while a stream must stay silent (socket open, PONG answered, no data). */
  isFrozen(stream: StreamName): boolean {
    return this.active(stream).some((r) => r.freeze === true);
  }
  /** Delay (ms) to add to every data frame of a stream; 0 for none. */
  streamLatency(stream: StreamName): number {
    return this.active(stream).reduce((m, r) => Math.max(m, r.latencyMs ?? 0), 0);
  }
  /**
   * Whether a connection of `stream` opened at `openedAt` (unix ms) must be dropped now, and if not
   * yet, in how many ms (undefined: never under the current rules).
   */
  dropDecision(stream: StreamName, openedAt: number): { now: boolean; inMs?: number } {
    const drops = this.active(stream).filter((r) => r.drop === true);
    if (drops.length === 0) return { now: false };
    const after = Math.min(...drops.map((r) => r.dropAfterMs ?? 0));
    const due = openedAt + after - this.now();
    return due <= 0 ? { now: true } : { now: false, inMs: due };
  }

  private active(stream: StreamName): FaultRule[] {
    if (this.rules.length === 0) return [];
    this.expire();
    return this.rules.filter((r) => r.stream === stream);
  }
  private expire(): void {
    const t = this.now();
    if (this.rules.some((r) => r.untilMs !== undefined && r.untilMs <= t)) {
      this.rules = this.rules.filter((r) => r.untilMs === undefined || r.untilMs > t);
      this.emit();
    }
  }
  private emit(): void {
    const snapshot = this.rules.map((r) => ({ ...r }));
    for (const fn of this.listeners) fn(snapshot);
  }
}

function validate(r: FaultRule): void {
  const isStream = r.stream !== undefined;
  if (isStream && !['market', 'user', 'rtds'].includes(r.stream as string))
    throw new RangeError(`fault: unknown stream ${String(r.stream)}`);
  if (!isStream && r.route === undefined) throw new RangeError('fault: a rule needs a route (HTTP) or a stream');
  if (isStream && r.route !== undefined) throw new RangeError('fault: a rule has either a route or a stream, not both');
  if (r.status !== undefined && ![425, 429, 500, 503].includes(r.status))
    throw new RangeError('fault: status must be 425, 429, 500 or 503');
  if (r.status !== undefined && isStream) throw new RangeError('fault: status applies to HTTP rules only');
  if ((r.freeze || r.drop) && !isStream) throw new RangeError('fault: freeze and drop apply to stream rules only');
  for (const k of ['latencyMs', 'dropAfterMs', 'untilMs'] as const) {
    const v = r[k];
    if (v !== undefined && !(Number.isFinite(v) && v >= 0))
      throw new RangeError(`fault: ${k} must be a non-negative number`);
  }
  if (r.probability !== undefined && !(r.probability >= 0 && r.probability <= 1))
    throw new RangeError('fault: probability must be in [0, 1]');
  if (r.status === undefined && r.latencyMs === undefined && !r.freeze && !r.drop)
    throw new RangeError('fault: a rule must do something (status, latencyMs, freeze or drop)');
}
