/**
 * The market-metadata API ("Gamma", spec 4.2) of the paper exchange, mounted under /gamma.
 * Answers are BARE records and arrays, as public Gamma clients expect (the spec's event endpoints
 * are bare); errors are the spec's envelope. Lists take `limit`/`offset` (or `next_cursor`) and
 * report the next cursor and the total in the `X-Next-Cursor` / `X-Total-Count` headers.
 *
 * Everything is public except `POST /comments` (L2 HMAC or Bearer).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { PaperExchange } from '../exchange.ts';
import type { CommentRec } from '../world/model.ts';
import { authenticate } from './auth.ts';
import { parseWith, qRequired, qString, type Query } from './body.ts';
import { badRequest, notFound } from './errors.ts';
import {
  commentRecord,
  eventRecord,
  figures,
  findEvent,
  findMarket,
  gammaMarket,
  marketTags,
  pageHeaders,
  paginate,
  pathAddress,
  profileRecord,
  qAny,
  qList,
  selectEvents,
  selectMarkets,
  seriesRecord,
  sportRecord,
  tagMatcher,
  tagRecord,
  priceString,
  iso,
} from './render-meta.ts';
import { formatAmount } from '../../core/units.ts';

/** Longest comment body, in characters (code points). */
export const MAX_COMMENT_CHARS = 2000;

const entityType = z.preprocess(
  (v) => (typeof v === 'string' ? v.charAt(0).toUpperCase() + v.slice(1).toLowerCase() : v),
  z.enum(['Event', 'Market']),
);
const idLike = z.union([z.string().trim().min(1).max(200), z.number().int().nonnegative()]).transform((v) => String(v));

/** Body of POST /comments (camelCase as the venue; snake_case and `parentCommentID` accepted too). */
const postCommentSchema = z.preprocess(
  (v) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const o = v as Record<string, unknown>;
    return {
      body: o.body,
      parentEntityType: o.parentEntityType ?? o.parent_entity_type,
      parentEntityID: o.parentEntityID ?? o.parentEntityId ?? o.parent_entity_id,
      replyTo: o.replyTo ?? o.reply_to ?? o.parentCommentID ?? undefined,
    };
  },
  z.object({
    body: z
      .string()
      .refine((s) => s.trim().length > 0, 'must not be blank')
      .refine((s) => [...s].length <= MAX_COMMENT_CHARS, `must be at most ${MAX_COMMENT_CHARS} characters`),
    parentEntityType: entityType,
    parentEntityID: idLike,
    replyTo: idLike.nullish(),
  }),
);

/**
 * The Gamma routes: GET /health, /events, /events/{slug|id} (also /events/slug/{slug}), /markets,
 * /markets/data, /markets/{condition_id|slug} (also /markets/slug/{slug}), /comments,
 * POST /comments, /profiles/{address}, /search (also /public-search), /tags, /sports, /series.
 */
export function gammaRoutes(ex: PaperExchange) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.get('/health', async () => ({ status: 'ok' }));

    // ---- events -------------------------------------------------------------------------------
    app.get('/events', async (req, reply) => {
      const q = req.query as Query;
      return pageHeaders(reply, paginate(selectEvents(ex, q), q, 20)).map((ev) => eventRecord(ex, ev));
    });
    const oneEvent = (idOrSlug: string) => {
      const ev = findEvent(ex, idOrSlug);
      if (ev === undefined) throw notFound('event not found');
      return eventRecord(ex, ev);
    };
    app.get<{ Params: { slug: string } }>('/events/:slug', async (req) => oneEvent(req.params.slug));
    app.get<{ Params: { slug: string } }>('/events/slug/:slug', async (req) => oneEvent(req.params.slug));

    // ---- markets ------------------------------------------------------------------------------
    app.get('/markets', async (req, reply) => {
      const q = req.query as Query;
      return pageHeaders(reply, paginate(selectMarkets(ex, q), q, 10)).map((e) => gammaMarket(ex, e));
    });
    app.get('/markets/data', async (req, reply) => {
      const q = req.query as Query;
      const cids = new Set(qList(q, 'condition_ids').map((s) => s.toLowerCase()));
      const list = ex.listMarkets().filter((e) => cids.size === 0 || cids.has(e.meta.conditionId.toLowerCase()));
      return pageHeaders(reply, paginate(list, q, 500)).map((e) => {
        const f = figures(ex, e);
        return {
          condition_id: e.meta.conditionId,
          token_ids: [...e.meta.tokens],
          active: e.state.status === 'active',
          closed: e.state.status !== 'active',
          best_bid: priceString(f.bid),
          best_ask: priceString(f.ask),
          mid: priceString(f.mid),
          last_trade_price: priceString(f.last),
          spread: priceString(f.spread),
          volume: formatAmount(f.volume),
          liquidity: formatAmount(f.liquidity),
        };
      });
    });
    const oneMarket = (idOrSlug: string) => {
      const e = findMarket(ex, idOrSlug);
      if (e === undefined) throw notFound('market not found');
      return gammaMarket(ex, e);
    };
    app.get<{ Params: { id: string } }>('/markets/:id', async (req) => oneMarket(req.params.id));
    app.get<{ Params: { slug: string } }>('/markets/slug/:slug', async (req) => oneMarket(req.params.slug));

    // ---- comments -----------------------------------------------------------------------------
    app.get('/comments', async (req, reply) => {
      const q = req.query as Query;
      const type = qAny(q, 'parent_entity_type', 'parentEntityType');
      const pid = qAny(q, 'parent_entity_id', 'parentEntityID', 'parentEntityId');
      const user = qAny(q, 'user', 'user_address', 'userAddress');
      let wantType: string | undefined;
      if (type !== undefined) {
        wantType = type.charAt(0).toUpperCase() + type.slice(1).toLowerCase();
        if (wantType !== 'Event' && wantType !== 'Market')
          throw badRequest('parent_entity_type must be Event or Market');
      }
      const userAddr = user === undefined ? undefined : pathAddress(user);
      const indexed = ex.world.comments
        .map((c, i) => ({ c, i }))
        .filter(({ c }) => {
          if (wantType !== undefined && c.parentEntityType !== wantType) return false;
          if (pid !== undefined && c.parentEntityId.toLowerCase() !== pid.toLowerCase()) return false;
          if (userAddr !== undefined && c.userAddress !== userAddr) return false;
          return true;
        });
      // newest first; equal times: the later stored first
      indexed.sort((a, b) => (a.c.createdAt < b.c.createdAt ? 1 : a.c.createdAt > b.c.createdAt ? -1 : b.i - a.i));
      return pageHeaders(reply, paginate(indexed, q, 10)).map(({ c }) => commentRecord(c));
    });
    app.post('/comments', async (req, reply) => {
      const key = authenticate(ex, req, { maxSkewSec: 300 });
      if (req.body === undefined) throw badRequest('missing JSON body');
      const b = parseWith(postCommentSchema, req.body, 'comment');
      let parentEntityId: string;
      if (b.parentEntityType === 'Event') {
        const ev = findEvent(ex, b.parentEntityID);
        if (ev === undefined) throw notFound(`event ${b.parentEntityID} not found`);
        parentEntityId = ev.id;
      } else {
        const e = ex.market(b.parentEntityID);
        if (e === undefined) throw notFound(`market ${b.parentEntityID} not found`);
        parentEntityId = e.meta.conditionId;
      }
      let replyTo: string | undefined;
      if (b.replyTo !== undefined && b.replyTo !== null) {
        const parent = ex.world.commentById.get(b.replyTo);
        if (parent === undefined) throw notFound(`comment ${b.replyTo} not found`);
        if (parent.parentEntityType !== b.parentEntityType || parent.parentEntityId !== parentEntityId)
          throw badRequest('replyTo must be a comment on the same event or market');
        replyTo = parent.id;
      }
      const comment: CommentRec = {
        id: ex.world.nextCommentId(),
        body: b.body,
        parentEntityType: b.parentEntityType,
        parentEntityId,
        userAddress: key.address,
        createdAt: iso(ex.clock.now()),
        ...(replyTo !== undefined ? { replyTo } : {}),
      };
      ex.exec({ k: 'comment', comment });
      reply.code(201);
      return commentRecord(comment);
    });

    // ---- profiles -----------------------------------------------------------------------------
    app.get<{ Params: { address: string } }>('/profiles/:address', async (req) => {
      const addr = pathAddress(req.params.address);
      const p = ex.world.profiles.get(addr);
      if (p) return profileRecord(p);
      const trades = ex.tradesOf(addr);
      const first = trades[0];
      if (first === undefined) throw notFound('profile not found');
      return profileRecord(
        {
          address: addr,
          name: '',
          pseudonym: `${addr.slice(0, 6)}…${addr.slice(-4)}`,
          bio: '',
          profileImage: '',
          createdAt: iso(first.trade.matchTime),
        },
        true,
      );
    });

    // ---- search -------------------------------------------------------------------------------
    const search = async (req: FastifyRequest) => {
      const q = req.query as Query;
      const text = qRequired(q, 'q').trim();
      if (text.length < 1 || [...text].length > 100) throw badRequest('q must be 1 to 100 characters');
      const needle = text.toLowerCase();
      const has = (s: string | undefined) => s?.toLowerCase().includes(needle);
      const limit = paginate([], q, 10, 100).limit;
      const events = [...ex.world.events.values()]
        .filter((ev) => has(ev.title) || has(ev.description) || ev.tags.some(has))
        .slice(0, limit);
      const markets = ex
        .listMarkets()
        .filter((e) => has(e.meta.question) || has(e.meta.slug) || marketTags(ex, e).some(has))
        .slice(0, limit);
      const tags = [...ex.world.tags.values()].filter((t) => has(t.label) || has(t.slug)).slice(0, limit);
      return {
        events: events.map((ev) => eventRecord(ex, ev)),
        markets: markets.map((e) => gammaMarket(ex, e)),
        tags: tags.map(tagRecord),
      };
    };
    app.get('/search', search);
    app.get('/public-search', search);

    // ---- tags, sports, series -----------------------------------------------------------------
    app.get('/tags', async (req, reply) =>
      pageHeaders(reply, paginate([...ex.world.tags.values()], req.query as Query, 10)).map(tagRecord),
    );
    app.get<{ Params: { id: string } }>('/tags/:id', async (req) => {
      const match = tagMatcher(ex, req.params.id);
      const t = [...ex.world.tags.values()].find((x) => match([x.label]));
      if (t === undefined) throw notFound('tag not found');
      return tagRecord(t);
    });
    app.get('/sports', async (req, reply) =>
      pageHeaders(reply, paginate([...ex.world.sports.values()], req.query as Query, 10)).map(sportRecord),
    );
    app.get('/series', async (req, reply) => {
      const q = req.query as Query;
      const slug = qString(q, 'slug');
      const list = [...ex.world.series.values()].filter((s) => slug === undefined || s.slug === slug);
      return pageHeaders(reply, paginate(list, q, 10)).map((s) => seriesRecord(ex, s));
    });
  };
}
