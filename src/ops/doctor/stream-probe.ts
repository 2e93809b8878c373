/**
 * One look at a venue stream: connect, send the subscription frames, then the text `PING`, and wait
 * for the `PONG`. Servers answer in order, so the PONG says the subscription was taken; a stream
 * that refuses the subscription (a user channel given wrong credentials) closes the socket or sends
 * an error frame first. Nothing is logged: the user channel's frame carries the API credentials.
 */
import WebSocket from 'ws';

export type ProbeResult =
  | { readonly ok: true; readonly ms: number }
  /** `refused`: the server answered but would not take the subscription; otherwise it did not answer. */
  | { readonly ok: false; readonly refused: boolean; readonly reason: string };

/**
 * Probe `url` (see the module comment), giving up after `timeoutMs`. With `openForMs`, a socket
 * that stays open that long after its frames counts too, PONG or not (RTDS servers may answer a
 * PING with a WebSocket ping frame only).
 */
export function probeStream(
  url: string,
  frames: readonly string[],
  timeoutMs: number,
  o: { openForMs?: number } = {},
): Promise<ProbeResult> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    let done = false;
    let ws: WebSocket;
    const finish = (r: ProbeResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (settle !== undefined) clearTimeout(settle);
      try {
        ws.terminate();
      } catch {
        /* not open */
      }
      resolve(r);
    };
    const timer = setTimeout(
      () => finish({ ok: false, refused: false, reason: `no answer within ${timeoutMs} ms` }),
      timeoutMs,
    );
    try {
      ws = new WebSocket(url, { handshakeTimeout: timeoutMs });
    } catch (e) {
      finish({ ok: false, refused: false, reason: (e as Error).message });
      return;
    }
    let settle: ReturnType<typeof setTimeout> | undefined;
    ws.on('open', () => {
      for (const f of frames) ws.send(f);
      ws.send('PING');
      if (o.openForMs !== undefined)
        settle = setTimeout(() => finish({ ok: true, ms: Math.round(performance.now() - t0) }), o.openForMs);
    });
    ws.on('ping', () => {
      if (o.openForMs !== undefined) finish({ ok: true, ms: Math.round(performance.now() - t0) });
    });
    ws.on('message', (data: WebSocket.RawData, binary: boolean) => {
      if (binary) return;
      const text = data.toString();
      if (text === 'PONG' || text === 'pong') {
        finish({ ok: true, ms: Math.round(performance.now() - t0) });
        return;
      }
      const err = errorFrame(text);
      if (err !== undefined) finish({ ok: false, refused: true, reason: `error frame: ${err}` });
    });
    ws.on('unexpected-response', (_req, res) =>
      finish({ ok: false, refused: false, reason: `the upgrade was answered HTTP ${res.statusCode}` }),
    );
    ws.on('close', (code, reason) =>
      finish({
        ok: false,
        refused: code === 1008 || code === 4001 || code === 4003,
        reason: `closed ${code}${reason.length > 0 ? ` (${reason.toString().slice(0, 120)})` : ''}`,
      }),
    );
    ws.on('error', (e) => finish({ ok: false, refused: false, reason: e.message }));
  });
}

/** The message of an error frame (`{"event_type":"error",...}` or `{"error": ...}`), else undefined. */
function errorFrame(text: string): string | undefined {
  if (!text.startsWith('{') && !text.startsWith('[')) return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    const one = Array.isArray(v) ? v[0] : v;
    if (one === null || typeof one !== 'object') return undefined;
    const o = one as Record<string, unknown>;
    if (o['event_type'] !== 'error' && !('error' in o)) return undefined;
    const e = o['error'];
    if (typeof e === 'string') return e.slice(0, 200);
    if (e !== null && typeof e === 'object') {
      const m = (e as Record<string, unknown>)['message'];
      if (typeof m === 'string') return m.slice(0, 200);
    }
    return 'error';
  } catch {
    return undefined;
  }
}
