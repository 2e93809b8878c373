/** A fleet member refuses settings that would act on the other members' orders (src/cli/run-fleet.ts checkFleetConfig). */
import { describe, expect, it } from 'vitest';
import { checkFleetConfig } from '../../../src/cli/run-fleet.ts';

const fleet = { redisUrl: 'redis://127.0.0.1:6390', member: 'a' };

describe('checkFleetConfig', () => {
  it('a fleet member must leave foreign orders alone', () => {
    expect(() => checkFleetConfig({ fleet, foreignOrders: 'cancel' })).toThrow(/bot\.foreignOrders.*leave.*fleet/);
    expect(() => checkFleetConfig({ fleet, foreignOrders: 'adopt' })).toThrow(/bot\.foreignOrders/);
    expect(() => checkFleetConfig({ fleet, foreignOrders: 'leave' })).not.toThrow();
    expect(() => checkFleetConfig({ fleet })).not.toThrow();
  });
  it('a lone daemon may cancel or adopt them', () => {
    expect(() => checkFleetConfig({ foreignOrders: 'cancel' })).not.toThrow();
    expect(() => checkFleetConfig({ fleet: { ...fleet, redisUrl: '' }, foreignOrders: 'adopt' })).not.toThrow();
  });
});
