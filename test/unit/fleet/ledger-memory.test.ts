/** The fleet ledger memory's file (src/fleet/ledger-memory.ts): anything but a memory is nothing remembered. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LEDGER_MEMORY_FILE, LedgerMemory, parseMemory } from '../../../src/fleet/ledger-memory.ts';

describe('parseMemory', () => {
  it('reads a memory, and takes anything else for nothing remembered', () => {
    expect(parseMemory('{"generation":"g1","ledgers":{"L1":"{}","L2":3},"pnl":{"L1":"-5","L2":7}}')).toEqual({
      generation: 'g1',
      ledgers: { L1: '{}' },
      pnl: { L1: '-5' },
    });
    // (a file of before the PnL figures were remembered)
    expect(parseMemory('{"generation":"g1","ledgers":{}}')).toEqual({ generation: 'g1', ledgers: {}, pnl: {} });
    for (const bad of ['', 'null', '[]', '{"generation":1,"ledgers":{}}', '{"generation":"g"}', '{tru'])
      expect(parseMemory(bad)).toEqual({ generation: undefined, ledgers: {}, pnl: {} });
  });
  it('a data dir without the file, or with a torn one, remembers nothing', () => {
    const d = mkdtempSync(join(tmpdir(), 'mmkit-lm-'));
    try {
      expect(new LedgerMemory(d).remembered.generation).toBeUndefined();
      writeFileSync(join(d, LEDGER_MEMORY_FILE), '{"generation":"g1","ledg');
      expect(new LedgerMemory(d).remembered).toEqual({ generation: undefined, ledgers: {}, pnl: {} });
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});
