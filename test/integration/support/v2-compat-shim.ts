/**
 * TEMPORARY, for tests only: a loopback proxy in front of a paper exchange that answers the three
 * read routes the public V2 client (`@polymarket/clob-client-v2`) calls before it builds an order,
 * `GET /version`, `GET /clob-markets/{condition_id}` and `GET /markets-by-token/{token_id}`, when
 * the exchange itself answers them 404, and forwards everything else unchanged (method, path,
 * headers, body: L2 signatures stay valid, they sign the path relative to the CLOB base).
 *
 * Those routes are another branch's work (issue 17, "the routes the V2 client calls"); this shim
 * lets the V2 order tests run without them. Once the exchange serves them, the shim forwards them
 * like any other route (it asks the exchange first), and it can be dropped: point the client at
 * the exchange's `clob_url` instead.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { formatAmount } from '../../../src/core/units.ts';
import type { PaperExchange } from '../../../src/exchange/exchange.ts';

export interface V2CompatShim {
  /** The CLOB base URL to give the V2 client. */
  clob: string;
  close(): Promise<void>;
}

/** The local answer to one of the three routes, or undefined for any other path. */
function localAnswer(ex: PaperExchange, path: string): { status: number; body: unknown } | undefined {
  if (path === '/clob/version') return { status: 200, body: { version: ex.protocol } };
  const cm = /^\/clob\/clob-markets\/([^/?]+)$/.exec(path);
  if (cm) {
    const e = ex.market(decodeURIComponent(cm[1]!));
    if (e === undefined) return { status: 404, body: { error: 'market not found' } };
    const m = e.meta;
    const s = ex.marketState(e);
    return {
      status: 200,
      body: {
        c: m.conditionId,
        t: [0, 1].map((i) => ({ t: m.tokens[i as 0 | 1], o: m.outcomes[i as 0 | 1] })),
        mts: Number(s.tick),
        nr: m.negRisk,
        mos: Number(formatAmount(m.minSizeMicro)),
        mbf: 0,
        tbf: m.feeRateBps,
        fd: { r: m.feeRateBps / 10_000, e: 1, to: true },
      },
    };
  }
  const bt = /^\/clob\/markets-by-token\/([^/?]+)$/.exec(path);
  if (bt) {
    const found = ex.marketOfToken(decodeURIComponent(bt[1]!));
    if (found === undefined) return { status: 404, body: { error: 'market not found' } };
    const m = found.entry.meta;
    return {
      status: 200,
      body: { condition_id: m.conditionId, primary_token_id: m.tokens[0], secondary_token_id: m.tokens[1] },
    };
  }
  return undefined;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Starts the shim in front of the exchange whose server listens on `upstreamPort`. */
export async function startV2CompatShim(ex: PaperExchange, upstreamPort: number): Promise<V2CompatShim> {
  const upstream = `http://127.0.0.1:${upstreamPort}`;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = req.url ?? '/';
    const path = url.split('?')[0]!;
    const body = await readBody(req);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (v === undefined || k === 'host' || k === 'connection' || k === 'content-length') continue;
      headers[k] = Array.isArray(v) ? v.join(', ') : v;
    }
    const method = req.method ?? 'GET';
    const r = await fetch(upstream + url, {
      method,
      headers,
      ...(body.length > 0 && method !== 'GET' && method !== 'HEAD' ? { body } : {}),
    });
    const local = method === 'GET' && r.status === 404 ? localAnswer(ex, path) : undefined;
    if (local !== undefined) {
      await r.arrayBuffer();
      res.writeHead(local.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(local.body));
      return;
    }
    const out = Buffer.from(await r.arrayBuffer());
    const outHeaders: Record<string, string> = {};
    r.headers.forEach((v, k) => {
      if (k !== 'content-length' && k !== 'transfer-encoding' && k !== 'connection' && k !== 'content-encoding')
        outHeaders[k] = v;
    });
    res.writeHead(r.status, outHeaders);
    res.end(out);
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'shim: upstream failed' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    clob: `http://127.0.0.1:${port}/clob`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
