/**
 * The terminal view of mmkit's log: each pino JSON line (as the logger would write it for a log
 * shipper) rendered as one compact line for a person. Pure: a line in, text out; the only state is
 * the names of the markets traded (`setMarkets`, or learnt from the daemon's "starting" line).
 *
 *  - `status` (the daemon's periodic line): ONE line: markets, open orders, fills this session,
 *    positions held, PnL with its parts (trading = realized + unrealized, fees, rewards);
 *  - `fill`: side, size, outcome, price, the market's question (shortened), maker/taker;
 *  - `summary` (at the daemon's exit): its figures, without the nested objects (stdout has it whole);
 *  - every other line: level, component, the market's question, the message, its fields as
 *    key=value; a token is named by its outcome and question, a market by its question (shortened,
 *    but never so far that two markets read the same); an id is
 *    printed whole (never cut) where nothing names it;
 *  - a shadow run's lines (`mmkit run --shadow`: "status (SHADOW)", "fill (SHADOW: simulated)")
 *    render the same, marked SHADOW;
 *  - warnings and errors stand out: coloured (yellow, red) when `color` is on, and their tag is
 *    always spelt out (WARN, ERROR), so they read without colour too;
 *  - a line's text may quote a venue (an error body, a market's question): every string of the line
 *    has its control characters spelt out (./safe-text.ts) before it is rendered, so only the view's
 *    own colours reach the terminal.
 *
 * Money and sizes arrive as decimal strings (the wire form): the view adds them exactly, in
 * micro-units, and prints USDC with 2 decimals.
 */
import { parseAmount } from '../../core/units.ts';
import { distinctShortQuestions } from '../../core/labels.ts';
import { DAEMON_COMPONENT } from './log-format.ts';
import { terminalSafe } from './safe-text.ts';

/** A market as the view names it (MarketInfo of the Venue port and MonitoredMarket fit). */
export interface NamedMarket {
  readonly market: string;
  readonly question: string;
  readonly tokens?: ReadonlyArray<{ readonly tokenId: string; readonly outcome: string }>;
}

/** Options of the view. */
export interface PrettyViewOptions {
  /** ANSI colours (default false: the caller decides, see `colorWanted`). */
  readonly color?: boolean;
  /** Times in UTC or the local zone (default local; tests use utc). */
  readonly timeZone?: 'utc' | 'local';
  /** Longest question shown (default 56 characters). */
  readonly questionMax?: number;
}

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** Fields every line has, or that the view shows elsewhere on the line. */
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'component', 'market', 'v']);
const ESC = '\u001b[';
/** The tail of a shadow run's messages. */
const SHADOW_TAIL = / \(SHADOW[^)]*\)$/;
const paint = (on: boolean, code: string, s: string): string => (on ? `${ESC}${code}m${s}${ESC}0m` : s);

/** Whether colours are wanted: on a terminal, unless NO_COLOR is set (https://no-color.org). */
export function colorWanted(isTTY: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  return isTTY && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}

/** A parsed log line's value with every string in it safe for the terminal (terminalSafe). */
function safeValue(v: unknown): unknown {
  if (typeof v === 'string') return terminalSafe(v);
  if (Array.isArray(v)) return v.map(safeValue);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [terminalSafe(k), safeValue(x)]));
}

/** Micro-collateral as "1.23" / "+1.23" (signed) with 2 decimals; "-0.00" never. */
function usd2(micro: number, signed = false): string {
  const neg = micro < 0;
  const cents = Math.round(Math.abs(micro) / 10_000);
  const s = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
  return neg && cents > 0 ? `-${s}` : signed ? `+${s}` : s;
}

/** A decimal string (or number), signed, as micro-units; undefined when it is not one. */
function micro(v: unknown): number | undefined {
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  const s = String(v);
  const neg = s.startsWith('-');
  try {
    const m = parseAmount(neg ? s.slice(1) : s, 'half-up');
    return neg ? -m : m;
  } catch {
    return undefined;
  }
}

/** The view (see the module comment). */
export class PrettyView {
  private readonly color: boolean;
  private readonly utc: boolean;
  private readonly qmax: number;
  private readonly questions = new Map<string, string>();
  private readonly tokens = new Map<string, { outcome: string; market: string }>();
  /** Each market's short question, distinct from the others' (recomputed when a market is learnt). */
  private short = new Map<string, string>();

  constructor(o: PrettyViewOptions = {}) {
    this.color = o.color ?? false;
    this.utc = o.timeZone === 'utc';
    this.qmax = o.questionMax ?? 56;
  }

  /** The markets traded: their questions and their tokens' outcomes name ids on every line. */
  setMarkets(markets: readonly NamedMarket[]): void {
    for (const m of markets) {
      this.questions.set(m.market, terminalSafe(m.question));
      for (const t of m.tokens ?? [])
        this.tokens.set(t.tokenId, { outcome: terminalSafe(t.outcome), market: m.market });
    }
    this.shorten();
  }

  private shorten(): void {
    const ids = [...this.questions.keys()];
    const labels = distinctShortQuestions(
      ids.map((id) => this.questions.get(id)!),
      this.qmax,
    );
    this.short = new Map(ids.map((id, i) => [id, labels[i]!]));
  }

  /**
   * One log line (JSON, with or without its newline) as text ending in "\n". A line that is not JSON
   * passes as is, but for its control characters (spelt out).
   */
  render(line: string): string {
    const text = line.endsWith('\n') ? line.slice(0, -1) : line;
    let o: Record<string, unknown>;
    try {
      const v: unknown = JSON.parse(text);
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return `${terminalSafe(text)}\n`;
      o = safeValue(v) as Record<string, unknown>;
    } catch {
      return `${terminalSafe(text)}\n`;
    }
    const level = typeof o.level === 'number' ? o.level : 30;
    const full = typeof o.msg === 'string' ? o.msg : '';
    // a shadow run's lines say so in their message ("status (SHADOW)", "fill (SHADOW: simulated)")
    const tail = SHADOW_TAIL.exec(full);
    const msg = tail === null ? full : full.slice(0, tail.index);
    const shadow = tail === null ? '' : `${paint(this.color, '1;35', 'SHADOW')} `;
    if (msg === 'starting') this.learnStarting(o);
    const body =
      msg === 'status' && level === 30
        ? this.status(o, shadow)
        : (msg === 'fill' || msg === 'external fill') && typeof o.side === 'string'
          ? this.fill(o, msg, shadow)
          : this.generic(o, level, msg, full);
    return `${this.time(o.time)} ${this.tag(level)} ${body}\n`;
  }

  private learnStarting(o: Record<string, unknown>): void {
    if (!Array.isArray(o.markets)) return;
    for (const m of o.markets as unknown[]) {
      const r = m as { market?: unknown; question?: unknown };
      if (typeof r?.market === 'string' && typeof r.question === 'string' && !this.questions.has(r.market))
        this.questions.set(r.market, r.question);
    }
    this.shorten();
  }

  private time(t: unknown): string {
    if (typeof t !== 'number') return '--:--:--';
    const d = new Date(t);
    const p = (n: number) => String(n).padStart(2, '0');
    return this.utc
      ? `${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`
      : `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
  }

  private tag(level: number): string {
    const name = (LEVELS[level] ?? String(level)).padEnd(5);
    if (level >= 50) return paint(this.color, '1;31', name);
    if (level >= 40) return paint(this.color, '1;33', name);
    if (level <= 20) return paint(this.color, '2', name);
    return paint(this.color, '2', name);
  }

  /** The market's question, shortened; the id whole when no question is known. */
  private marketName(id: string): string {
    return this.short.get(id) ?? id;
  }

  /** "Yes · Will BTC…" for a known token; the id whole otherwise. */
  private tokenName(id: string): string {
    const t = this.tokens.get(id);
    if (t === undefined) return id;
    const q = this.short.get(t.market);
    return q === undefined ? t.outcome : `${t.outcome} · ${q}`;
  }

  private status(o: Record<string, unknown>, shadow: string): string {
    const parts: string[] = [];
    const markets = typeof o.markets === 'number' ? o.markets : undefined;
    if (markets !== undefined) parts.push(`${markets} market${markets === 1 ? '' : 's'}`);
    if (typeof o.open === 'number') parts.push(`${o.open} open order${o.open === 1 ? '' : 's'}`);
    if (typeof o.fills === 'number') parts.push(`${o.fills} fill${o.fills === 1 ? '' : 's'} this session`);
    if (Array.isArray(o.positions)) parts.push(`${o.positions.length} position${o.positions.length === 1 ? '' : 's'}`);
    const realized = micro(o.realized);
    const unrealized = micro(o.unrealized);
    if (realized !== undefined && unrealized !== undefined) {
      const fees = micro(o.fees);
      const rewards = micro(o.rewards);
      const trading = realized + unrealized;
      const total = trading - (fees ?? 0) + (rewards ?? 0);
      const detail = [
        `trading ${usd2(trading, true)}`,
        ...(fees !== undefined ? [`fees ${usd2(-fees, true)}`] : []),
        ...(rewards !== undefined ? [`rewards ${usd2(rewards, true)}`] : []),
      ];
      const pnl = `PnL ${usd2(total, true)} USDC`;
      const coloured = total > 0 ? paint(this.color, '32', pnl) : total < 0 ? paint(this.color, '31', pnl) : pnl;
      parts.push(`${coloured} (${detail.join(', ')})`);
    }
    // the UTC day's PnL the daily loss limit judges (bot.risk.maxDailyLoss on)
    const day = micro(o.day);
    if (day !== undefined) parts.push(`today ${usd2(day, true)}`);
    return `${paint(this.color, '1;36', 'status')}  ${shadow}${parts.join(' · ')}`;
  }

  private fill(o: Record<string, unknown>, msg: string, shadow: string): string {
    const side = String(o.side);
    const sideText = paint(this.color, side === 'BUY' ? '1;32' : '1;31', side.padEnd(4));
    const token = typeof o.token === 'string' ? this.tokens.get(o.token) : undefined;
    const outcome = token?.outcome ?? (typeof o.token === 'string' ? `token ${o.token}` : undefined);
    const market = typeof o.market === 'string' ? o.market : token?.market;
    const what = [String(o.size ?? '?'), ...(outcome !== undefined ? [outcome] : [])].join(' ');
    const extra: string[] = [];
    if (typeof o.role === 'string') extra.push(o.role.toLowerCase());
    if (typeof o.status === 'string' && o.status !== 'MATCHED') extra.push(o.status.toLowerCase());
    if (o.backfilled === true) extra.push('backfilled');
    const label = msg === 'fill' ? paint(this.color, '1', 'fill') : msg;
    return `${label}    ${shadow}${sideText} ${what} @ ${String(o.price ?? '?')}${market !== undefined ? ` · ${this.marketName(market)}` : ''}${extra.length > 0 ? `  (${extra.join(', ')})` : ''}`;
  }

  private generic(o: Record<string, unknown>, level: number, msg: string, full: string): string {
    const head: string[] = [];
    if (typeof o.component === 'string' && o.component !== DAEMON_COMPONENT) head.push(o.component);
    if (typeof o.market === 'string') head.push(this.marketName(o.market));
    let text = full;
    if (msg === 'starting' && Array.isArray(o.markets)) {
      const names = (o.markets as Array<{ market?: unknown }>).map((m) =>
        typeof m?.market === 'string' ? `"${this.marketName(m.market)}"` : '?',
      );
      text = `${full}: ${names.length} market${names.length === 1 ? '' : 's'}: ${names.join(', ')}`;
    }
    const fields = Object.entries(o)
      .filter(([k]) => !HIDDEN.has(k) && !(msg === 'starting' && k === 'markets'))
      // the run's summary: its figures (stdout prints it whole, for a person)
      .filter(([, v]) => !(msg === 'summary' && v !== null && typeof v === 'object'))
      // (a token id named by its outcome and market reads as `token=`, as the other lines: trial 15 F7)
      .map(
        ([k, v]) =>
          `${k === 'tokenId' && typeof v === 'string' && this.tokens.has(v) ? 'token' : k}=${this.value(k, v)}`,
      );
    const line = `${head.length > 0 ? `${head.join(' · ')}: ` : ''}${text}${fields.length > 0 ? `  ${fields.join(' ')}` : ''}`;
    if (level >= 50) return paint(this.color, '31', line);
    if (level >= 40) return paint(this.color, '33', line);
    if (level <= 20) return paint(this.color, '2', line);
    return line;
  }

  /** A field's value: ids named, strings with spaces quoted, objects compact (never cut). */
  private value(key: string, v: unknown): string {
    if (typeof v === 'string') {
      if (this.tokens.has(v)) return JSON.stringify(this.tokenName(v));
      if (this.questions.has(v)) return JSON.stringify(this.marketName(v));
      return /[\s"=]/.test(v) || v === '' ? JSON.stringify(v) : v;
    }
    if (v === null || typeof v !== 'object') return String(v);
    if (key === 'err' && typeof (v as { message?: unknown }).message === 'string')
      return JSON.stringify((v as { message: string }).message);
    return JSON.stringify(v, (_k, x: unknown) =>
      typeof x === 'string' && this.tokens.has(x)
        ? this.tokenName(x)
        : typeof x === 'string' && this.questions.has(x)
          ? this.marketName(x)
          : x,
    );
  }
}
