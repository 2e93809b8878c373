import { describe, expect, it } from 'vitest';
import { Metrics } from '../../../src/ops/metrics.ts';

describe('the member label of a fleet', () => {
  it('is absent for a lone daemon and on every sample once set', async () => {
    const m = new Metrics({ now: () => 0, defaultMetrics: false, info: { version: '1.2.3' } });
    m.openOrders.set(3);
    const lone = await m.registry.metrics();
    expect(lone).not.toContain('member=');
    expect(lone).toMatch(/^mmkit_open_orders 3$/m);
    expect(m.member).toBeUndefined();
    m.setMember('mmkit-b');
    const fleet = await m.registry.metrics();
    expect(fleet).toMatch(/^mmkit_open_orders\{member="mmkit-b"\} 3$/m);
    expect(fleet).toMatch(/^mmkit_info\{version="1.2.3",member="mmkit-b"\} 1$/m);
    expect(m.member).toBe('mmkit-b');
  });
});
