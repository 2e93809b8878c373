/**
 * The venue's public side: each REST API answers, its clock, its protocol version, the geoblock
 * status of this machine's address, and the markets to trade (tick and minimum sizes).
 */
import { z } from 'zod';
import type { ClobClient } from '../../api/clob.ts';
import { formatAmount, type Micro } from '../../core/units.ts';
import { fail, pass, warn, type Check } from './check.ts';
import { clockCheck, clockOffset } from './clock-check.ts';
import { isUnreachable, messageOf, routeMessage } from './errors.ts';

/** `api.<name>`: the API answered its health route. */
export async function apiCheck(
  name: 'clob' | 'gamma' | 'data',
  url: string,
  call: () => Promise<unknown>,
): Promise<Check> {
  const id = `api.${name}`;
  const title = `${name === 'clob' ? 'CLOB' : name === 'gamma' ? 'market metadata (Gamma)' : 'data'} API`;
  if (url === '')
    return warn(id, title, 'no URL configured', `set venue.${name}Url (or bot.exchangeUrl for a paper exchange)`);
  const t0 = performance.now();
  try {
    await call();
    return pass(id, title, `${url} answered in ${Math.round(performance.now() - t0)} ms`);
  } catch (e) {
    return fail(
      id,
      title,
      `${url}: ${messageOf(e)}`,
      isUnreachable(e)
        ? `check venue.${name}Url (or bot.exchangeUrl), the network and any proxy; the venue may be down (retry later)`
        : `venue.${name}Url does not look like the ${name} API: check it`,
      isUnreachable(e),
    );
  }
}

/** `clock`: GET /time against our clock. */
export async function clockOf(clob: ClobClient, now: () => number, maxMs: number): Promise<Check> {
  try {
    const sent = now();
    const sec = await clob.time();
    return clockCheck(clockOffset(sec, sent, now()), maxMs);
  } catch (e) {
    return fail(
      'clock',
      'clock skew (GET /time)',
      routeMessage('GET /time', e),
      'the venue must answer GET /time',
      isUnreachable(e),
    );
  }
}

/** `protocol`: the venue's GET /version against what mmkit speaks (1 and 2) and venue.protocol. */
export async function protocolOf(
  clob: ClobClient,
  configured: 'auto' | 1 | 2,
): Promise<{ check: Check; venue: 1 | 2 | undefined }> {
  const id = 'protocol';
  const title = 'protocol version (GET /version)';
  let v: 1 | 2;
  try {
    v = await clob.version();
  } catch (e) {
    return {
      check: fail(
        id,
        title,
        routeMessage('GET /version', e),
        isUnreachable(e) ? 'retry when the venue answers' : 'this mmkit speaks protocols 1 and 2: upgrade mmkit',
        isUnreachable(e),
      ),
      venue: undefined,
    };
  }
  if (configured !== 'auto' && configured !== v)
    return {
      check: fail(
        id,
        title,
        `the venue speaks protocol ${v}, venue.protocol says ${configured}: its orders would be refused`,
        `set venue.protocol to ${v} (or auto)`,
      ),
      venue: v,
    };
  return {
    check: pass(id, title, `the venue speaks ${v}; mmkit signs ${v} (speaks 1 and 2; venue.protocol ${configured})`),
    venue: v,
  };
}

const geoblockSchema = z.object({
  blocked: z.boolean(),
  ip: z.string().optional(),
  country: z.string().optional(),
  region: z.string().optional(),
});

/** `geoblock`: GET <url> (`{blocked, ip, country, region}`); no URL: a warn saying which to set. */
export async function geoblockOf(url: string, timeoutMs: number): Promise<Check> {
  const id = 'geoblock';
  const title = 'geoblock status';
  if (url === '')
    return warn(
      id,
      title,
      'not checked: no geoblock URL',
      'set doctor.geoblockUrl (the public service: https://polymarket.com/api/geoblock, config/polymarket.json)',
    );
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
    if (!r.ok) return warn(id, title, `${url} answered HTTP ${r.status}`, 'check doctor.geoblockUrl');
    const g = geoblockSchema.safeParse(await r.json());
    if (!g.success) return warn(id, title, `${url} answered no {blocked} record`, 'check doctor.geoblockUrl');
    const where = [g.data.country, g.data.region].filter((x) => x !== undefined && x !== '').join('-') || 'unknown';
    const who = `${g.data.ip ?? 'this address'} (${where})`;
    return g.data.blocked
      ? fail(
          id,
          title,
          `orders from ${who} are refused by the venue`,
          "trade from a machine in a region the venue allows (its docs: Geographic Restrictions); the venue's terms apply",
        )
      : pass(id, title, `${who} is not blocked`);
  } catch (e) {
    return warn(id, title, `${url}: ${messageOf(e)}`, 'check doctor.geoblockUrl and the network');
  }
}

/**
 * `markets`: each market of bot.markets exists, accepts orders, and its minimum size fits under
 * the largest order the risk limits allow; its tick and minimum size shown. None configured: the
 * strategy picks them at start (the order builder applies each one's tick and minimum size).
 */
export async function marketsOf(
  clob: ClobClient,
  markets: readonly string[],
  maxOrderSize: Micro | undefined,
): Promise<{ check: Check; tokens: string[] }> {
  const id = 'markets';
  const title = 'markets: tick and minimum sizes';
  if (markets.length === 0)
    return {
      check: pass(
        id,
        title,
        'bot.markets is empty: the strategy picks its markets at start, each with its own tick and minimum size',
      ),
      tokens: [],
    };
  const parts: string[] = [];
  const problems: string[] = [];
  const tokens: string[] = [];
  // what went wrong, for a fix line naming only what applies (findings-5 P6)
  let closed = false;
  let unknown = false;
  let minSize: Micro | undefined;
  for (const cid of markets) {
    try {
      const m = await clob.market(cid);
      tokens.push(...m.tokens.map((t) => String(t.tokenId)));
      const short = `${cid.slice(0, 10)}…`;
      parts.push(
        `${short} tick ${m.tickSize}, min size ${formatAmount(m.minOrderSize)}${m.negRisk ? ', neg-risk' : ''}`,
      );
      if (m.closed || !m.active || !m.acceptingOrders) {
        closed = true;
        problems.push(`${short} does not accept orders (closed or inactive)`);
      }
      if (maxOrderSize !== undefined && maxOrderSize < m.minOrderSize) {
        minSize = minSize === undefined || m.minOrderSize > minSize ? m.minOrderSize : minSize;
        problems.push(
          `${short}: its minimum size ${formatAmount(m.minOrderSize)} is above bot.risk.maxOrderSizeShares ${formatAmount(maxOrderSize)}`,
        );
      }
    } catch (e) {
      if (isUnreachable(e))
        return { check: fail(id, title, `${cid}: ${messageOf(e)}`, 'retry when the venue answers', true), tokens };
      unknown = true;
      problems.push(`${cid}: ${messageOf(e)}`);
    }
  }
  if (problems.length > 0) {
    const which = [
      ...(unknown ? ['fix the condition ids the venue does not know'] : []),
      ...(closed ? ['replace the markets that take no orders'] : []),
    ].join(' and ');
    const fixes = [
      ...(which !== ''
        ? [`${which} in bot.markets (\`mmkit markets --active\` with the same --config lists those accepting orders)`]
        : []),
      ...(minSize !== undefined
        ? [
            `raise bot.risk.maxOrderSizeShares to at least ${formatAmount(minSize)} (the minimum size), or pick markets with a smaller one`,
          ]
        : []),
    ];
    return { check: fail(id, title, [...problems, ...parts].join('; '), fixes.join('; and ')), tokens };
  }
  return { check: pass(id, title, parts.join('; ')), tokens };
}
