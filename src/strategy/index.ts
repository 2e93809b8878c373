/**
 * The public surface a strategy plugin imports, as one module: `import { defineStrategy, ... } from
 * 'mmkit/strategy'` works from any file inside the project (package.json `exports` self-reference),
 * so a plugin needs no relative paths into src/. Only the strategy API, the shared quoting rules and
 * the core units, ids, events and intents: nothing that does I/O.
 */
export * from './api.ts';
export * from './quoting.ts';
export * from './models.ts';
export * from '../core/units.ts';
export type * from '../core/ids.ts';
export * from '../core/events.ts';
export type * from '../core/intents.ts';
export type { MarketInfo } from '../core/venue.ts';
export type { Clock } from '../core/clock.ts';
