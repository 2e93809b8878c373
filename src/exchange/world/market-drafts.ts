/**
 * What the world generator's parts share to build records: a market's identity and its record from a
 * draft (`MarketDraft`, `toMeta`), the binary markets' description, slugs, ISO dates, image URLs,
 * month names and the world's minimum order size. Pure, like the generator (generator.ts).
 */
import { keccak256, toUtf8Bytes } from 'ethers';
import type { TickSize } from '../../core/units.ts';
import { conditionIdFor, tokenIdFor, type MarketMeta } from '../markets.ts';
import type { CryptoSymbol, EventRec } from './model.ts';

/** Minimum order size of every world market: 5 shares. */
export const WORLD_MIN_SIZE_MICRO = 5_000_000;

export const DAY = 86_400_000;
export const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;

export function slugify(s: string): string {
  return s
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

export const iso = (ms: number): string => new Date(ms).toISOString();
export const image = (kind: string, slug: string): string => `https://paper.mmkit.dev/img/${kind}/${slug}.png`;

/** A market's identity from its label (condition, question and token ids). */
function ids(label: string): Pick<MarketMeta, 'conditionId' | 'questionId' | 'tokens'> {
  return {
    conditionId: conditionIdFor(label),
    questionId: keccak256(toUtf8Bytes(`question:${label}`)),
    tokens: [tokenIdFor(`${label}:yes`), tokenIdFor(`${label}:no`)],
  };
}

export function binaryDescription(question: string, ev: { description: string }): string {
  return `This market will resolve to "Yes" if the answer to "${question}" is yes. Otherwise, it will resolve to "No". ${ev.description}`;
}

export interface MarketDraft {
  label: string;
  question: string;
  description: string;
  slug: string;
  negRisk: boolean;
  tick: TickSize;
  endMs: number;
  createdMs: number;
  cryptoSymbol?: CryptoSymbol;
}

export function toMeta(d: MarketDraft, ev: EventRec): MarketMeta {
  return {
    ...ids(d.label),
    question: d.question,
    description: d.description,
    slug: d.slug,
    outcomes: ['Yes', 'No'],
    tick: d.tick,
    minSizeMicro: WORLD_MIN_SIZE_MICRO,
    negRisk: d.negRisk,
    feeRateBps: 0,
    endDate: iso(d.endMs),
    createdAt: iso(d.createdMs),
    category: ev.category,
    tags: [...ev.tags],
    eventId: ev.id,
    ...(d.cryptoSymbol !== undefined ? { cryptoSymbol: d.cryptoSymbol } : {}),
  };
}
