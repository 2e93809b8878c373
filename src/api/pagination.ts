/**
 * Pagination as async iterators, pulled: the next page is requested only when the consumer asks for
 * more, so a `for await … break` stops the requests, and every request still passes the transport's
 * budget.
 *
 *  - `offsetPages`: lists that answer bare arrays (Gamma). The transport returns only the payload, so
 *    the total (X-Total-Count) is not visible: the iteration advances `offset` by the page length and
 *    stops at the first page shorter than `limit` (or empty).
 *  - `cursorPages`: lists with page facts (Data, Content, like the CLOB's cursor pages): follows
 *    `next_cursor` until `LTE=`; when an answer carries no cursor, falls back to offsets, stopping on
 *    a short page or when `total` is reached.
 *
 * Lists are ordered and stable on the paper exchange, but records created while iterating (a new
 * comment on a newest-first list) can shift later pages: expect an occasional duplicate, dedupe by id
 * if it matters.
 */
import { ValidationError } from '../core/errors.ts';
import { END_CURSOR, type Page } from './schemas/common.ts';

/** Where one page starts: an offset, or (for cursor lists) the cursor the previous page gave. */
export interface PageRequest {
  limit: number;
  offset: number;
  /** Set from the second page on when the list gives cursors. */
  nextCursor?: string;
}

/** Options of an iteration. */
export interface IterateOptions {
  /** Page size (default: the list's default page size on the venue, or 100). */
  pageSize?: number;
  /** First offset (default 0). */
  offset?: number;
  /** Stop after this many items. */
  maxItems?: number;
}

function checkLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new ValidationError(`page size must be a positive integer, got ${String(limit)}`);
}

/**
 * Pages of a bare-array list, by limit/offset.
 * @throws ValidationError on a bad page size; whatever `fetch` throws.
 */
export async function* offsetPages<T>(
  fetch: (req: PageRequest) => Promise<T[]>,
  opts: IterateOptions & { pageSize: number },
): AsyncGenerator<T[], void, undefined> {
  const limit = opts.pageSize;
  checkLimit(limit);
  let offset = opts.offset ?? 0;
  let left = opts.maxItems ?? Infinity;
  while (left > 0) {
    const items = await fetch({ limit, offset });
    const page = items.length > left ? items.slice(0, left) : items;
    if (page.length > 0) yield page;
    left -= page.length;
    if (items.length < limit || items.length === 0) return;
    offset += items.length;
  }
}

/**
 * Pages of a list that answers page facts (`next_cursor`, `total`).
 * @throws ValidationError on a bad page size or a cursor that does not advance; whatever `fetch` throws.
 */
export async function* cursorPages<T>(
  fetch: (req: PageRequest) => Promise<Page<T>>,
  opts: IterateOptions & { pageSize: number },
): AsyncGenerator<T[], void, undefined> {
  const limit = opts.pageSize;
  checkLimit(limit);
  let req: PageRequest = { limit, offset: opts.offset ?? 0 };
  let left = opts.maxItems ?? Infinity;
  const seen = new Set<string>();
  while (left > 0) {
    const p = await fetch(req);
    const page = p.items.length > left ? p.items.slice(0, left) : p.items;
    if (page.length > 0) yield page;
    left -= page.length;
    if (p.items.length === 0) return;
    const offset = req.offset + p.items.length;
    if (p.nextCursor !== null) {
      if (p.nextCursor === END_CURSOR || p.nextCursor === '') return;
      if (seen.has(p.nextCursor))
        throw new ValidationError(`pagination does not advance: cursor ${p.nextCursor.slice(0, 40)} seen twice`);
      seen.add(p.nextCursor);
      req = { limit, offset, nextCursor: p.nextCursor };
    } else {
      if (p.items.length < limit) return;
      if (p.total !== null && offset >= p.total) return;
      req = { limit, offset };
    }
  }
}

/** Flatten pages into items. */
export async function* flatten<T>(pages: AsyncIterable<T[]>): AsyncGenerator<T, void, undefined> {
  for await (const page of pages) yield* page;
}

/** Collect an async iterable into an array (tests, small lists). */
export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}
