/**
 * Which markets a fleet member claims (issue 21; research §3.3), pure: every member computes its
 * fair share `ceil(markets / live members)` and its preference order by rendezvous hashing
 * (highest random weight): a market "belongs" to the live member with the highest
 * `hash(member, market)`. Members first claim the markets they win, then any other, and a member
 * holding more than its share gives up the ones it is least preferred for. Members that agree on
 * who is alive therefore converge to a stable split, and a member's death moves only its markets.
 */
import { createHash } from 'node:crypto';

/** The most markets one member may hold: ceil(markets / live members) (0 with no market). */
export function fairShare(markets: number, liveMembers: number): number {
  if (markets <= 0) return 0;
  return Math.ceil(markets / Math.max(1, liveMembers));
}

/** The rendezvous weight of (member, market): 48 bits of SHA-1, deterministic across machines. */
export function rendezvousWeight(member: string, market: string): number {
  return Number.parseInt(createHash('sha1').update(`${member}\n${market}`).digest('hex').slice(0, 12), 16);
}

/** The live member a market belongs to by rendezvous hashing (ties: the smaller name); undefined with none. */
export function rendezvousOwner(market: string, live: readonly string[]): string | undefined {
  let best: string | undefined;
  let bw = -1;
  for (const m of live) {
    const w = rendezvousWeight(m, market);
    if (w > bw || (w === bw && best !== undefined && m < best)) {
      best = m;
      bw = w;
    }
  }
  return best;
}

/**
 * `markets` in `member`'s order of preference: first those it owns among `live` (itself counted
 * live), then the others, each group by falling weight (ties: market id).
 */
export function preferenceOrder(member: string, live: readonly string[], markets: readonly string[]): string[] {
  const everyone = live.includes(member) ? live : [...live, member];
  const keyed = markets.map((m) => ({
    m,
    own: rendezvousOwner(m, everyone) === member ? 0 : 1,
    w: rendezvousWeight(member, m),
  }));
  keyed.sort((a, b) => a.own - b.own || b.w - a.w || (a.m < b.m ? -1 : a.m > b.m ? 1 : 0));
  return keyed.map((k) => k.m);
}

/** What a member should do this round. */
export interface SharePlan {
  /** The most markets it may hold. */
  readonly share: number;
  /** Free-to-try markets, most preferred first; claim up to `share - held` of them. */
  readonly candidates: string[];
  /** Held markets to give up now (least preferred first). */
  readonly release: string[];
}

/** The plan for `member` holding `held` among `markets` with `live` members (pure). */
export function planShare(
  member: string,
  live: readonly string[],
  markets: readonly string[],
  held: ReadonlySet<string>,
): SharePlan {
  const everyone = live.includes(member) ? live.length : live.length + 1;
  const share = fairShare(markets.length, everyone);
  const order = preferenceOrder(member, live, markets);
  const mine = order.filter((m) => held.has(m));
  const release = mine.length > share ? mine.slice(share).reverse() : [];
  const candidates = mine.length < share ? order.filter((m) => !held.has(m)) : [];
  return { share, candidates, release };
}
