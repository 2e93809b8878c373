/** A fleet member accepts bot.foreignOrders cancel/adopt: the other members' orders are not foreign (src/cli/run.ts checkFleetConfig). */
import { describe, expect, it } from 'vitest';
import { checkFleetConfig } from '../../../src/cli/run.ts';

const fleet = { redisUrl: 'redis://127.0.0.1:1', member: 'a' };

describe('checkFleetConfig', () => {
  it('allows every bot.foreignOrders policy in a fleet (foreign = claimed by no member)', () => {
    expect(() => checkFleetConfig({ fleet, foreignOrders: 'cancel' })).not.toThrow();
    expect(() => checkFleetConfig({ fleet, foreignOrders: 'adopt' })).not.toThrow();
    expect(() => checkFleetConfig({ fleet, foreignOrders: 'leave' })).not.toThrow();
    expect(() => checkFleetConfig({ fleet })).not.toThrow();
  });
});
