/**
 * `mmkit store archive` as an operator runs it on a data dir: refused while a daemon holds the data
 * dir (exit 1, nothing moved), a dry run that changes nothing, then the move (text and --json), and
 * the store still gives the same positions afterwards (`positions --source store`).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.ts';
import type { ConditionId, OrderId, TokenId } from '../../src/core/ids.ts';
import type { Micro, Pips } from '../../src/core/units.ts';
import { acquireDaemonLock } from '../../src/ops/daemon-lock.ts';
import { openStore } from '../../src/store/store.ts';
import { runMmkit } from './support/cli.ts';

const M = '0xmarket' as ConditionId;
const YES = '111' as TokenId;
const DAY = 86_400_000;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-store-archive-'));
  // 40 days ago: 3 orders (filled, cancelled, live), a fill, 2 audit rows; now-ish: one cancelled order
  const clock = new VirtualClock(Date.now() - 40 * DAY);
  const s = openStore(join(dir, 'mmkit.db'), { clock, checkpoint: 'auto' });
  s.openEpoch({ venue: 'paper', world: 'w', address: '0xAB' });
  const req = { market: M, tokenId: YES, side: 'BUY' as const, price: 4000 as Pips, size: 10_000_000 as Micro };
  for (const id of ['0xf', '0xc', '0xl'])
    s.recordOrder({ id: id as OrderId, request: { ...req, type: 'GTC' }, wire: {} });
  s.updateOrder('0xf' as OrderId, { status: 'filled', sizeMatched: 10_000_000 });
  s.updateOrder('0xc' as OrderId, { status: 'cancelled' });
  s.updateOrder('0xl' as OrderId, { status: 'live' });
  s.recordFill({
    ...req,
    tradeId: 't1',
    orderId: '0xf' as OrderId,
    fee: 0 as Micro,
    role: 'MAKER',
    status: 'CONFIRMED',
    matchTime: clock.now(),
  });
  s.audit('cycle', { n: 1 });
  s.audit('cycle', { n: 2 });
  clock.advance(40 * DAY - 60_000);
  s.recordOrder({ id: '0xnew' as OrderId, request: { ...req, type: 'GTC' }, wire: {} });
  s.updateOrder('0xnew' as OrderId, { status: 'cancelled' });
  s.close();
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('mmkit store archive', () => {
  it('refuses beside a daemon, counts on a dry run, moves the old rows, and the positions stay', async () => {
    const positions = async () =>
      JSON.parse((await runMmkit(['positions', '--source', 'store', '--json', '--data-dir', dir])).out);
    const held = await positions();
    expect(held.positions.length).toBe(1);

    // a daemon holds the data dir: refused, nothing moved
    const lock = await acquireDaemonLock(dir);
    try {
      const r = await runMmkit(['store', 'archive', '--older-than', '30d', '--data-dir', dir]);
      expect(r.code, r.err).toBe(1);
      expect(r.err).toMatch(
        /another mmkit daemon is running on data dir .*stop it before archiving \(`mmkit kill --data-dir /,
      );
    } finally {
      lock.release();
    }
    const bad = await runMmkit(['store', 'archive', '--older-than', '2h', '--data-dir', dir]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/at least 1d/);

    const dry = await runMmkit(['store', 'archive', '--older-than', '30d', '--dry-run', '--data-dir', dir]);
    expect(dry.code, dry.err).toBe(0);
    expect(dry.out).toMatch(
      /^would move 2 finished order\(s\) and 2 audit row\(s\) older than .* \(dry run: nothing changed\)\n$/,
    );
    expect(dry.err).toMatch(/1 older order\(s\) not finished \(open or unresolved\) were kept/);
    expect(existsSync(join(dir, 'archive'))).toBe(false);

    const r = await runMmkit(['store', 'archive', '--older-than', '30d', '--json', '--data-dir', dir]);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    expect(j).toMatchObject({ dryRun: false, orders: 2, audit: 2, openOrdersKept: 1 });
    expect(j.archive).toMatch(/archive\/mmkit-before-\d{4}-\d\d-\d\d\.db$/);
    expect(existsSync(j.archive)).toBe(true);
    expect(await positions()).toEqual(held);

    const again = await runMmkit(['store', 'archive', '--older-than', '30d', '--data-dir', dir]);
    expect(again.code, again.err).toBe(0);
    expect(again.out).toMatch(/^nothing to archive/);
  }, 120_000);
});
