/**
 * `mmkit run`'s pre-flight refusal (src/cli/doctor.ts): one failed check per line with its fix under
 * it, as `mmkit doctor` prints them, not every check and fix run together on one long line.
 */
import { describe, expect, it } from 'vitest';
import { preflightRefusal } from '../../../src/cli/doctor.ts';

describe('preflightRefusal', () => {
  it('lists each failed check on its own line, its fix under it; passes and warnings are left out', () => {
    const text = preflightRefusal({
      checks: [
        {
          id: 'api.clob',
          title: 'CLOB API',
          status: 'fail',
          detail: 'unreachable (ENOTFOUND)',
          fix: 'check venue.clobUrl',
        },
        { id: 'clock', title: 'clock skew', status: 'pass', detail: 'within 20 ms' },
        { id: 'geoblock', title: 'geoblock', status: 'warn', detail: 'not checked', fix: 'set doctor.geoblockUrl' },
        { id: 'stream.market', title: 'market stream', status: 'fail', detail: 'no answer' },
      ],
    });
    expect(text.split('\n')).toEqual([
      'pre-flight checks failed, not starting (`mmkit doctor` shows them all):',
      '  FAIL api.clob: unreachable (ENOTFOUND)',
      '       fix: check venue.clobUrl',
      '  FAIL stream.market: no answer',
    ]);
  });
});
