/**
 * A raw `ws` test client of the exchange's streams: records every event object received (array
 * frames are flattened), the non-JSON texts (PONG) and the close, and waits for what a test expects.
 */
import WebSocket from 'ws';

export class WsClient {
  /** Every event object received, in order (array frames flattened). */
  readonly events: any[] = [];
  /** Frames as received (parsed JSON, or the raw text when not JSON). */
  readonly frames: unknown[] = [];
  readonly texts: string[] = [];
  closed: { code: number; reason: string } | undefined;
  lastFrameAt = 0;
  pings = 0;
  private waiters: Array<() => void> = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      this.lastFrameAt = Date.now();
      const text = isBinary ? '<binary>' : data.toString();
      let v: unknown;
      try {
        v = JSON.parse(text);
      } catch {
        this.texts.push(text);
        this.frames.push(text);
        this.wake();
        return;
      }
      this.frames.push(v);
      if (Array.isArray(v)) this.events.push(...v);
      else this.events.push(v);
      this.wake();
    });
    ws.on('ping', () => this.pings++);
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.wake();
    });
    ws.on('error', () => {});
  }

  /** Opens a socket; rejects when the handshake fails (e.g. 404). */
  static open(url: string): Promise<WsClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      const c = new WsClient(ws);
      ws.once('open', () => resolve(c));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`unexpected response ${res.statusCode}`)));
      ws.once('error', reject);
    });
  }

  send(msg: unknown): void {
    this.ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg));
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Resolves when `cond()` holds (checked on every frame and close), rejects after `timeoutMs`. */
  until<T>(cond: () => T | undefined | false, timeoutMs = 30_000, what = 'condition'): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const v = cond();
        if (v !== undefined && v !== false) {
          clearTimeout(timer);
          resolve(v as T);
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
      const loop = () => {
        if (!check()) this.waiters.push(loop);
      };
      loop();
    });
  }

  /** The first event from index `from` on matching `pred` (waits for it). */
  waitFor(pred: (e: any) => boolean, opts: { from?: number; timeoutMs?: number; what?: string } = {}): Promise<any> {
    const from = opts.from ?? 0;
    return this.until(() => this.events.slice(from).find(pred), opts.timeoutMs ?? 3000, opts.what ?? 'an event');
  }

  /** Waits for the text `t` (e.g. "PONG") after index `from` of `texts`. */
  waitText(t: string, from = 0, timeoutMs = 30_000): Promise<string> {
    return this.until(() => this.texts.slice(from).find((x) => x === t), timeoutMs, `text ${t}`);
  }

  /** Resolves once no frame has arrived for `ms` (at most `maxMs` in all). */
  async quiet(ms = 50, maxMs = 10_000): Promise<void> {
    const end = Date.now() + maxMs;
    for (;;) {
      const idle = Date.now() - this.lastFrameAt;
      if (idle >= ms) return;
      if (Date.now() > end) throw new Error('stream never went quiet');
      await new Promise((r) => setTimeout(r, ms - idle + 1));
    }
  }

  waitClose(timeoutMs = 30_000): Promise<{ code: number; reason: string }> {
    return this.until(() => this.closed, timeoutMs, 'close');
  }

  close(): void {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.terminate();
  }
}

export const wsUrl = (base: string, path: string): string => `${base}${path}`;
