/**
 * The streams: the market channel, the user channel (authenticated with the API key in use) and
 * the real-time data stream each take a subscription and answer a PING (stream-probe.ts).
 */
import type { ApiCredentials } from '../../api/auth.ts';
import { fail, pass, warn, type Check } from './check.ts';
import { probeStream, type ProbeResult } from './stream-probe.ts';

export interface StreamUrls {
  /** The WebSocket base (market at <ws>/ws/market, user at <ws>/ws/user). */
  readonly ws: string;
  /** The RTDS URL; absent: <ws>/rtds (the paper exchange's layout). */
  readonly rtds?: string | undefined;
}

function judge(id: string, title: string, url: string, r: ProbeResult, fix: string, refusedFix: string): Check {
  if (r.ok) return pass(id, title, `${url} answered in ${r.ms} ms`);
  return r.refused
    ? fail(id, title, `${url} refused: ${r.reason}`, refusedFix)
    : fail(id, title, `${url}: ${r.reason}`, fix, true);
}

/** `stream.market`, `stream.user`, `stream.rtds`. */
export async function streamChecks(
  u: StreamUrls,
  o: { tokens: readonly string[]; credentials: ApiCredentials | undefined; timeoutMs: number },
): Promise<Check[]> {
  const base = u.ws.replace(/\/+$/, '');
  const market = `${base}/ws/market`;
  const user = `${base}/ws/user`;
  const rtds = u.rtds ?? `${base}/rtds`;
  const unreachable = (key: string) =>
    `check venue.${key} (or bot.exchangeUrl), the network, and that a proxy or firewall lets WebSockets through`;
  const [m, r, us] = await Promise.all([
    probeStream(
      market,
      [JSON.stringify({ assets_ids: o.tokens.slice(0, 2), type: 'market', custom_feature_enabled: true })],
      o.timeoutMs,
    ),
    probeStream(rtds, [], o.timeoutMs, { openForMs: 1000 }),
    o.credentials === undefined
      ? undefined
      : probeStream(
          user,
          [
            JSON.stringify({
              auth: {
                apiKey: o.credentials.apiKey,
                secret: o.credentials.secret,
                passphrase: o.credentials.passphrase,
              },
              markets: [],
              type: 'user',
            }),
          ],
          o.timeoutMs,
        ),
  ]);
  return [
    judge(
      'stream.market',
      'market stream',
      market,
      m,
      unreachable('wsUrl'),
      'check venue.wsUrl: this is not the market channel',
    ),
    us === undefined
      ? warn(
          'stream.user',
          'user stream',
          'not checked: no API credentials (see auth.l1)',
          'fix what auth.l1 reports, then run `mmkit doctor` again',
        )
      : judge(
          'stream.user',
          'user stream',
          user,
          us,
          unreachable('wsUrl'),
          'the user channel refused the API credentials: see auth.l2',
        ),
    judge('stream.rtds', 'real-time data stream (RTDS)', rtds, r, unreachable('rtdsUrl'), 'check venue.rtdsUrl'),
  ];
}
