/**
 * Headless Chromium (Debian's `chromium` package; .ci/run installs it when absent) for the status
 * page tests: the one-shot modes (`--dump-dom`, `--screenshot`) and a minimal DevTools-protocol
 * session (evaluate JavaScript in a live page) over the `ws` package.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import WebSocket from 'ws';

/** The Chromium binary, or undefined when none is installed. */
export function findChromium(): string | undefined {
  for (const c of [process.env.CHROMIUM_BIN, 'chromium', 'chromium-browser', 'google-chrome']) {
    if (c === undefined || c === '') continue;
    const r = spawnSync(c, ['--version'], { encoding: 'utf8', timeout: 20_000 });
    if (r.status === 0) return c;
  }
  return undefined;
}

const BASE_FLAGS = [
  '--headless',
  '--disable-gpu',
  '--no-sandbox',
  '--disable-dev-shm-usage',
  '--no-first-run',
  '--mute-audio',
];

/** Until a child's piped stdout and stderr have ended, or `timeoutMs` passed. */
async function drained(p: ChildProcess, timeoutMs: number): Promise<void> {
  const streams = [p.stdout, p.stderr].filter((x) => x !== null);
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    Promise.all(streams.map((x) => finished(x).catch(() => undefined))),
    new Promise((r) => (timer = setTimeout(r, timeoutMs))),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Removes a browser profile. Chromium's helper processes (crashpad, GPU) can still be writing it
 * for a moment after the browser exits (ENOTEMPTY): it retries, asynchronously. (Node 20's `rmSync`
 * with `maxRetries` sleeps between tries with the event loop blocked: 20 tries of 100 ms froze the
 * test process, and the paper exchange it hosts, for 21 s, and the daemon under test stopped on
 * its failed heartbeats.) Never fails a test over a temporary folder: one left behind stays there.
 */
export async function removeProfile(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }).catch(() => undefined);
}

/** Runs chromium once with these flags; resolves with its stdout. */
export function runChromium(
  bin: string,
  args: string[],
  timeoutMs = 60_000,
): Promise<{ code: number | null; out: string; err: string }> {
  const profile = mkdtempSync(join(tmpdir(), 'mmkit-chromium-'));
  return new Promise((resolve, reject) => {
    const p = spawn(bin, [...BASE_FLAGS, `--user-data-dir=${profile}`, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    const t = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('error', reject);
    p.on('exit', (code) => {
      clearTimeout(t);
      // the output (--dump-dom) can still be on its way when the process exits: read it to its end
      // (bounded: a helper process may hold the pipe)
      void drained(p, 10_000)
        .then(() => removeProfile(profile))
        .then(() => resolve({ code, out, err }));
    });
  });
}

/** A page in a headless browser driven over the DevTools protocol. */
export class CdpPage {
  private constructor(
    private readonly proc: ChildProcess,
    private readonly ws: WebSocket,
    private readonly sessionId: string,
    private readonly profile: string,
    private readonly send: (method: string, params?: object, sessionId?: string) => Promise<Record<string, unknown>>,
  ) {}

  /** Start a browser (with extra command-line `args`) and open `url` in it. */
  static async open(
    bin: string,
    url: string,
    o: { width?: number; height?: number; args?: readonly string[] } = {},
  ): Promise<CdpPage> {
    const profile = mkdtempSync(join(tmpdir(), 'mmkit-cdp-'));
    const proc = spawn(
      bin,
      [
        ...BASE_FLAGS,
        '--remote-debugging-port=0',
        `--user-data-dir=${profile}`,
        `--window-size=${o.width ?? 1280},${o.height ?? 900}`,
        ...(o.args ?? []),
        'about:blank',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    const wsUrl = await new Promise<string>((resolve, reject) => {
      const t = setTimeout(
        () => reject(new Error(`chromium did not start its DevTools server: ${err.slice(-500)}`)),
        60_000,
      );
      proc.stderr!.on('data', (d) => {
        err += d;
        const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
        if (m) {
          clearTimeout(t);
          resolve(m[1]!);
        }
      });
      proc.on('exit', () => reject(new Error(`chromium exited: ${err.slice(-500)}`)));
    });
    const ws = new WebSocket(wsUrl);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    let id = 0;
    const pending = new Map<number, { resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void }>();
    ws.on('message', (d) => {
      const m = JSON.parse(String(d)) as { id?: number; result?: Record<string, unknown>; error?: { message: string } };
      if (m.id === undefined) return;
      const p = pending.get(m.id);
      pending.delete(m.id);
      if (m.error) p?.reject(new Error(m.error.message));
      else p?.resolve(m.result ?? {});
    });
    const send = (method: string, params: object = {}, sessionId?: string) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        const i = ++id;
        pending.set(i, { resolve, reject });
        ws.send(JSON.stringify({ id: i, method, params, ...(sessionId ? { sessionId } : {}) }));
      });
    const target = await send('Target.createTarget', { url });
    const attached = await send('Target.attachToTarget', { targetId: target['targetId'], flatten: true });
    const sessionId = attached['sessionId'] as string;
    await send(
      'Emulation.setDeviceMetricsOverride',
      { width: o.width ?? 1280, height: o.height ?? 900, deviceScaleFactor: 1, mobile: false },
      sessionId,
    );
    return new CdpPage(proc, ws, sessionId, profile, send);
  }

  /** The value of a JavaScript expression in the page. */
  async eval<T = unknown>(expression: string): Promise<T> {
    const r = await this.send('Runtime.evaluate', { expression, returnByValue: true }, this.sessionId);
    return (r['result'] as { value: T }).value;
  }

  /** Polls `expression` until it is truthy; returns its last value. */
  async waitFor<T = unknown>(expression: string, timeoutMs = 15_000): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const v = await this.eval<T>(expression);
      if (v || Date.now() > end) return v;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** A PNG of the viewport. */
  async screenshot(): Promise<Buffer> {
    const r = await this.send('Page.captureScreenshot', { format: 'png' }, this.sessionId);
    return Buffer.from(r['data'] as string, 'base64');
  }

  async close(): Promise<void> {
    this.ws.close();
    this.proc.kill('SIGKILL');
    if (this.proc.exitCode === null && this.proc.signalCode === null)
      await new Promise((r) => this.proc.once('exit', r));
    await removeProfile(this.profile);
  }
}
