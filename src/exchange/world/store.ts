/**
 * In-memory store of the world's records with the lookups the metadata, data and content APIs need.
 * Insertion order is kept (lists are stable for pagination).
 */
import type { ArticleRec, CommentRec, EventRec, ProfileRec, SeriesRec, SportRec, TagRec } from './model.ts';

export class WorldStore {
  readonly tags = new Map<string, TagRec>(); // by slug
  readonly series = new Map<string, SeriesRec>(); // by slug
  readonly sports = new Map<string, SportRec>(); // by sport
  readonly events = new Map<string, EventRec>(); // by id
  readonly eventBySlug = new Map<string, EventRec>();
  readonly eventOfMarket = new Map<string, EventRec>(); // condition id -> event
  readonly comments: CommentRec[] = [];
  readonly commentById = new Map<string, CommentRec>();
  readonly articles = new Map<string, ArticleRec>(); // by id
  readonly profiles = new Map<string, ProfileRec>(); // by lower-case address
  /** The highest numeric comment id so far (0: none). */
  #lastCommentId = 0;

  addTag(t: TagRec): void {
    this.tags.set(t.slug, t);
  }
  addSeries(s: SeriesRec): void {
    this.series.set(s.slug, s);
  }
  addSport(s: SportRec): void {
    this.sports.set(s.sport, s);
  }
  /** Adds or replaces an event (an event gains markets over time). */
  putEvent(e: EventRec): void {
    this.events.set(e.id, e);
    this.eventBySlug.set(e.slug, e);
    for (const m of e.marketIds) this.eventOfMarket.set(m, e);
  }
  addComment(c: CommentRec): void {
    this.comments.push(c);
    this.commentById.set(c.id, c);
    const n = /^[0-9]{1,15}$/.test(c.id) ? Number(c.id) : 0;
    if (n > this.#lastCommentId) this.#lastCommentId = n;
  }
  /**
   * The id of the next comment, whoever writes it (a user's POST, the world's lifecycle): one increasing
   * sequence, `from` at the least, so that "newer than the last id seen" finds every comment (trial 24 F7:
   * users' comments took small ids below the world's).
   */
  nextCommentId(from = 1): string {
    return String(Math.max(from, this.#lastCommentId + 1));
  }
  addArticle(a: ArticleRec): void {
    this.articles.set(a.id, a);
  }
  putProfile(p: ProfileRec): void {
    this.profiles.set(p.address.toLowerCase(), p);
  }
}
