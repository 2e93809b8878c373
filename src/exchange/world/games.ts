/**
 * The games: short-dated sports events whose markets end when the game does, so games finish and the
 * next one appears during a run. The generator (generator.ts) seeds game 0 of each sport; the
 * lifecycle (lifecycle.ts) adds the next.
 */
import type { MarketMeta } from '../markets.ts';
import type { GameSport } from './catalog.ts';
import { binaryDescription, image, iso, slugify, toMeta } from './market-drafts.ts';
import type { EventRec, SeriesRec } from './model.ts';
import { hash32, rngFor, shuffled } from './seeding.ts';

/** The series record of a game sport. */
export function gameSeries(g: GameSport): SeriesRec {
  return {
    id: String(8_000 + (hash32(g.seriesSlug) % 1000)),
    slug: g.seriesSlug,
    title: g.seriesTitle,
    recurrence: 'daily',
    category: 'sports',
  };
}

/**
 * Game number `n` of a sport's series: an event whose markets end when the game does (in minutes),
 * so games finish and the next one appears during a run.
 */
export function gameEvent(
  seed: number,
  g: GameSport,
  n: number,
  eventId: string,
  nowMs: number,
): { event: EventRec; markets: MarketMeta[] } {
  const rng = rngFor(seed, `game:${g.sport}:${n}`);
  const teams = shuffled(rng, g.teams);
  const home = teams[0]!;
  const away = teams[1]!;
  const minutes = rng.int(g.minutes[0], g.minutes[1]);
  const endMs = Math.floor((nowMs + minutes * 60_000) / 1000) * 1000;
  const title = `${home} vs. ${away}`;
  const slug = `${g.sport}-${slugify(home)}-${slugify(away)}-g${n + 1}`;
  const description = `${g.label}: ${home} host ${away}. Markets resolve on the official final result (regulation and overtime included unless stated).`;
  const event: EventRec = {
    id: eventId,
    slug,
    title,
    description,
    tags: [...g.tags],
    category: 'sports',
    startDate: iso(nowMs),
    endDate: iso(endMs),
    imageUrl: image('events', slug),
    createdAt: iso(nowMs),
    negRisk: g.threeWay,
    seriesSlug: g.seriesSlug,
    sport: g.sport,
    marketIds: [],
  };
  const qs: Array<[string, string]> = g.threeWay
    ? [
        [`Will ${home} win?`, `${slug}-${slugify(home)}`],
        [`Will ${home} vs. ${away} end in a draw?`, `${slug}-draw`],
        [`Will ${away} win?`, `${slug}-${slugify(away)}`],
      ]
    : [
        [`${title}: will the ${home} win?`, `${slug}-moneyline`],
        [`Spread: will the ${home} win by more than ${rng.int(2, 8)}.5 points?`, `${slug}-spread`],
        [`Total: will ${home} vs. ${away} score over ${rng.int(212, 238)}.5 points?`, `${slug}-total`],
      ];
  const markets = qs.map(([q, s], i) =>
    toMeta(
      {
        label: `${seed}:game:${g.sport}:${n}:${i}`,
        question: q,
        description: binaryDescription(q, event),
        slug: s,
        negRisk: g.threeWay,
        tick: '0.01',
        endMs,
        createdMs: nowMs,
      },
      event,
    ),
  );
  event.marketIds = markets.map((m) => m.conditionId);
  return { event, markets };
}
