/**
 * The world's people and content: the profiles (the flow agents' and other users'), the comments on
 * events and markets (with replies), and the news articles. The generator (generator.ts) makes the
 * first ones; the lifecycle (lifecycle.ts) adds a new comment now and then (`commentRecord`).
 */
import type { Rng } from '../../core/random.ts';
import type { MarketMeta } from '../markets.ts';
import { agentAccounts } from './agent-accounts.ts';
import {
  ARTICLE_AUTHORS,
  ARTICLE_PARAGRAPHS,
  ARTICLE_TITLES,
  BIOS,
  COMMENT_BODIES,
  FIRST_NAMES,
  HANDLE_A,
  HANDLE_B,
  REPLY_BODIES,
} from './catalog.ts';
import { DAY, image, iso, slugify } from './market-drafts.ts';
import type { ArticleRec, CommentRec, EventRec, ProfileRec } from './model.ts';
import { addressFor, hash32, rngFor, shuffled } from './seeding.ts';

/** First numeric comment id of world `seed`. */
export function commentIdBase(seed: number): number {
  return 1_000_000 + (hash32(`comments:${seed}`) % 8_000_000);
}

function handle(rng: Rng): string {
  return `${rng.pick(HANDLE_A)}${rng.pick(HANDLE_B)}${rng.int(1, 999)}`;
}

export function makeProfiles(seed: number, nowMs: number): ProfileRec[] {
  const rng = rngFor(seed, 'profiles');
  const agents = agentAccounts(seed);
  const out: ProfileRec[] = [];
  const used = new Set<string>();
  const profile = (address: string, name: string, bio: string): ProfileRec => {
    let pseudonym = handle(rng);
    while (used.has(pseudonym)) pseudonym = handle(rng);
    used.add(pseudonym);
    const created = nowMs - Math.floor((5 + rng.next() * 600) * DAY);
    return {
      address,
      name,
      pseudonym,
      bio,
      profileImage: image('profiles', pseudonym.toLowerCase()),
      createdAt: iso(created),
    };
  };
  const lpNames = ['Pinewood Liquidity', 'Harbor Quotes', 'Meridian Markets', 'Delta Flow Capital'];
  agents.lp.forEach((a, i) =>
    out.push(profile(a, lpNames[i % lpNames.length]!, 'Market making on every book. Two-sided, all day.')),
  );
  for (const a of [...agents.noise, ...agents.informed])
    out.push(profile(a, rng.next() < 0.5 ? rng.pick(FIRST_NAMES) : '', rng.pick(BIOS)));
  const users = rng.int(12, 30);
  for (let i = 0; i < users; i++)
    out.push(
      profile(addressFor(`profile:${seed}:${i}`), rng.next() < 0.6 ? rng.pick(FIRST_NAMES) : '', rng.pick(BIOS)),
    );
  return out;
}

/** Parent of a comment: an event or a market. */
export interface CommentParent {
  type: 'Event' | 'Market';
  id: string;
  /** The event title or market question (for {q}). */
  text: string;
}

/** One comment's record (body drawn by `rng`); `replyTo` makes it a reply. */
export function commentRecord(
  rng: Rng,
  id: string,
  parent: CommentParent,
  author: string,
  atMs: number,
  replyTo?: string,
): CommentRec {
  const o = rng.next() < 0.5 ? 'YES' : 'NO';
  const body =
    replyTo !== undefined
      ? rng.pick(REPLY_BODIES)
      : rng.pick(COMMENT_BODIES).replace('{q}', parent.text).replace('{o}', o);
  return {
    id,
    body,
    parentEntityType: parent.type,
    parentEntityId: parent.id,
    userAddress: author.toLowerCase(),
    createdAt: iso(atMs),
    ...(replyTo !== undefined ? { replyTo } : {}),
  };
}

export function makeComments(
  seed: number,
  nowMs: number,
  events: EventRec[],
  markets: MarketMeta[],
  profiles: ProfileRec[],
): CommentRec[] {
  const rng = rngFor(seed, 'comments');
  const n = rng.int(60, 140);
  const eventById = new Map(events.map((e) => [e.id, e]));
  const drafts: Array<{ parent: CommentParent; at: number; author: string; reply: boolean }> = [];
  for (let i = 0; i < n; i++) {
    let parent: CommentParent;
    let created: number;
    if (rng.next() < 0.55) {
      const e = rng.pick(events);
      parent = { type: 'Event', id: e.id, text: e.title };
      created = Date.parse(e.createdAt);
    } else {
      const m = rng.pick(markets);
      parent = { type: 'Market', id: m.conditionId, text: m.question };
      created = Date.parse(eventById.get(m.eventId ?? '')?.createdAt ?? m.createdAt);
    }
    const span = Math.max(60_000, nowMs - created);
    const at = Math.floor(nowMs - span * rng.next() * rng.next());
    drafts.push({ parent, at, author: rng.pick(profiles).address, reply: rng.next() < 0.25 });
  }
  drafts.sort((a, b) => a.at - b.at);
  const base = commentIdBase(seed);
  const out: CommentRec[] = [];
  const byParent = new Map<string, CommentRec[]>();
  drafts.forEach((d, i) => {
    const earlier = byParent.get(d.parent.id) ?? [];
    const replyTo = d.reply && earlier.length > 0 ? rng.pick(earlier).id : undefined;
    const c = commentRecord(rng, String(base + i), d.parent, d.author, d.at, replyTo);
    out.push(c);
    earlier.push(c);
    byParent.set(d.parent.id, earlier);
  });
  return out;
}

export function makeArticles(seed: number, nowMs: number, events: EventRec[]): ArticleRec[] {
  const rng = rngFor(seed, 'articles');
  const n = rng.int(10, 20);
  const pool = shuffled(
    rng,
    events.filter((e) => e.category !== 'crypto' || !e.seriesSlug),
  );
  const out: ArticleRec[] = [];
  for (let i = 0; i < n; i++) {
    const e = pool[i % pool.length]!;
    const title = rng.pick(ARTICLE_TITLES).replace('{t}', e.title);
    const paras = shuffled(rng, ARTICLE_PARAGRAPHS).slice(0, 3);
    const created = Date.parse(e.createdAt);
    const at = Math.floor(nowMs - Math.max(60_000, nowMs - created) * rng.next());
    const slug = `${slugify(title).slice(0, 60)}-${i + 1}`;
    out.push({
      id: String(500 + i + (hash32(`articles:${seed}`) % 10_000) * 100),
      slug,
      title,
      summary: paras[0]!,
      body: paras.join('\n\n'),
      author: rng.pick(ARTICLE_AUTHORS),
      publishedAt: iso(at),
      tags: [...e.tags],
      eventIds: [e.id],
      imageUrl: image('articles', slug),
    });
  }
  out.sort((a, b) => Date.parse(a.publishedAt) - Date.parse(b.publishedAt));
  return out;
}
