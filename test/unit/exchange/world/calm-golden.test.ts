/**
 * The calm world profile is the world as it was before profiles existed (issue 18): for a given seed
 * the exchange emits exactly the same event stream, so the easy world and the realistic one can be
 * compared. The digests below were taken from the code before world profiles were added; a change of
 * the calm flow (an extra random draw, a new agent, another order) changes them.
 *
 * Regenerate only for a deliberate change of an event's wire shape, never for a change of the flow.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../../src/core/clock.ts';
import { DEFAULT_EXCHANGE_OPTIONS, PaperExchange } from '../../../../src/exchange/exchange.ts';
import { seedWorld, startWorld } from '../../../../src/exchange/world/index.ts';

/** Every event the exchange emits over `minutes` of virtual time with the world on: count and sha256. */
function digest(seed: number, minutes: number): { events: number; sha256: string } {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const ex = new PaperExchange({ ...DEFAULT_EXCHANGE_OPTIONS, clock });
  seedWorld(ex, seed);
  ex.start();
  const h = createHash('sha256');
  let events = 0;
  ex.subscribe((evs) => {
    for (const e of evs) {
      events++;
      h.update(JSON.stringify(e, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
      h.update('\n');
    }
  });
  const w = startWorld(ex, { seed, agents: 'default', lifecycle: true, priceFeed: true, profile: 'calm' });
  clock.advance(minutes * 60_000);
  w.stop();
  ex.stop();
  return { events, sha256: h.digest('hex') };
}

describe('the calm world profile', () => {
  it('emits, for a given seed, the same event stream as the world before profiles (seed 1)', () => {
    expect(digest(1, 10)).toEqual({
      events: 48269,
      sha256: '60a22cc78b13035103ae3e0be717a32bb01b1b3042af40de2f715e093f8223ee',
    });
  });
  it('emits, for a given seed, the same event stream as the world before profiles (seed 2)', () => {
    expect(digest(2, 10)).toEqual({
      events: 52797,
      sha256: 'dd38b31afda69390943856663b921fde73df972d9e8d073e763fd93082660024',
    });
  });
});
