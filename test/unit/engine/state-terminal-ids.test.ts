/** EngineState's bounded memory of finished order ids (EngineStateOptions.terminalCapacity): which id is forgotten. */
import { describe, expect, it } from 'vitest';
import { EngineState } from '../../../src/engine/state.ts';
import { CID, market, order } from './fixtures.ts';

describe('EngineState: finished order ids', () => {
  it('forgets the oldest finished id, over thousands of evictions: a late update revives only a forgotten order', () => {
    const s = new EngineState([market()], { terminalCapacity: 2 });
    const n = 5_000;
    for (let i = 0; i < n; i++) {
      s.apply(order(`o${i}`, 'LIVE'), i);
      s.apply(order(`o${i}`, 'CANCELED'), i);
      // the one finished before it is remembered: a late LIVE of it changes nothing
      if (i > 0) s.apply(order(`o${i - 1}`, 'LIVE'), i);
      expect(s.openOrders(CID)).toEqual([]);
    }
    // o[n-3] was forgotten when o[n-1] finished: its late update revives it (why only a backtest bounds it)
    s.apply(order(`o${n - 3}`, 'LIVE'), n);
    expect(s.openOrders(CID).map((o) => o.id)).toEqual([`o${n - 3}`]);
  });
});
