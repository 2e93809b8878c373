/**
 * One daemon per data dir (src/ops/daemon-lock.ts), through the CLI and a paper exchange the test
 * watches:
 *  - a second `mmkit run` on the data dir of a running daemon exits 2 within seconds, naming the
 *    first (pid, host, since, status URL), before it touches anything: the first's orders stay at
 *    the venue (the very same orders: none cancelled), its daemon.json stays, `mmkit status` still
 *    finds it; `mmkit kill` then stops the first, exit 0, and it removes its lock;
 *  - a lock left by a daemon killed with `kill -9` is taken over by the next start, which says so
 *    (naming the dead holder), quotes, and removes the lock at its orderly exit.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BotHarness, exited, logLines, waitForQuotes, waitUntil } from './support/bot-harness.ts';
import { runMmkit } from './support/cli.ts';
import { daemonStatus, lockOf, pidAlive } from './support/processes.ts';

const h = new BotHarness();
afterAll(() => h.close());

describe('mmkit run: one daemon per data dir', () => {
  it('a second daemon on the same data dir exits 2 naming the first, which keeps quoting', async () => {
    const { ex, base } = await h.exchange(11);
    const { dir, address } = h.dataDir();
    const first = h.startBot(base, dir, ['--duration', '600s']);
    expect(await waitForQuotes(ex, address, 120_000), first.err().slice(-2000)).toBeGreaterThan(0);
    expect(await waitUntil(() => lockOf(dir)?.statusUrl !== undefined, 60_000)).toBe(true);
    const lock = lockOf(dir)!;
    expect(lock.pid).toBe(first.p.pid);
    const daemonJson = readFileSync(join(dir, 'daemon.json'), 'utf8');

    const second = h.startBot(base, dir, ['--duration', '600s']);
    // a node start and the CLI's modules on a loaded machine: seconds (a trading start takes far longer)
    expect(
      await waitUntil(() => second.p.exitCode !== null || second.p.signalCode !== null, 30_000),
      second.err().slice(-2000),
    ).toBe(true);
    expect(await exited(second.p), second.err().slice(-2000)).toBe(2);
    const msg = second.err();
    for (const w of [`pid ${lock.pid}`, `host ${lock.host}`, `since ${lock.startedAt}`, lock.statusUrl!])
      expect(msg).toContain(w);
    expect(msg).toContain('another mmkit daemon is running');
    // it did nothing before refusing (the lock comes first): not one log line (no status server, no
    // venue, no API key, no market pick, no restart reconciliation cancelling the first's orders)
    expect(logLines(msg)).toEqual([]);

    // the first is untouched: still running and quoting, its files and its status server
    expect(ex.exchange.openOrders(address).length).toBeGreaterThan(0);
    expect(first.p.exitCode).toBe(null);
    expect(readFileSync(join(dir, 'daemon.json'), 'utf8')).toBe(daemonJson);
    expect(lockOf(dir)).toEqual(lock);
    const st = await runMmkit(['status', '--data-dir', dir, '--json']);
    expect(st.code, st.err).toBe(0);
    expect(JSON.parse(st.out)).toMatchObject({ pid: first.p.pid, lifecycle: 'running' });
    // and keeps quoting: orders at the venue a while later too
    expect(await waitForQuotes(ex, address, 60_000)).toBeGreaterThan(0);

    // `mmkit kill` (the operator) stops it: exit 0, flat, its lock and records removed
    const killed = await runMmkit(['kill', '--data-dir', dir, '--json']);
    expect(killed.code, killed.err + killed.out).toBe(0);
    expect(await exited(first.p), first.err().slice(-3000)).toBe(0);
    expect(first.out()).toContain('kill switch over HTTP');
    expect(ex.exchange.openOrders(address)).toEqual([]);
    expect(existsSync(join(dir, 'daemon.lock'))).toBe(false);
    expect(existsSync(join(dir, 'daemon.json'))).toBe(false);
  }, 300_000);

  it('a lock left by kill -9 is taken over by the next start, with a warning naming the dead holder', async () => {
    const { ex, base } = await h.exchange(12);
    const { dir, address } = h.dataDir();
    const first = h.startBot(base, dir, ['--duration', '600s']);
    expect(await waitForQuotes(ex, address, 120_000), first.err().slice(-2000)).toBeGreaterThan(0);
    const dead = lockOf(dir)!;
    expect(dead.pid).toBe(first.p.pid);
    first.p.kill('SIGKILL');
    await exited(first.p);
    expect(await waitUntil(() => !pidAlive(dead.pid), 30_000)).toBe(true);
    // the lock (and daemon.json) outlive it
    expect(lockOf(dir)).toEqual(dead);

    const next = h.startBot(base, dir, ['--duration', '600s']);
    const takeover = () => logLines(next.err()).find((l) => l.msg.startsWith('taking over a stale daemon lock'));
    expect(await waitUntil(() => takeover() !== undefined, 120_000), next.err().slice(-2000)).toBe(true);
    expect(takeover()!.level).toBe(40);
    expect(takeover()!.msg).toContain(`pid ${dead.pid} on host ${dead.host}, since ${dead.startedAt}`);
    expect(takeover()!.msg).toContain(`pid ${dead.pid} is gone`);
    // it runs: its own lock, its own status server, its orders at the venue
    expect(await waitUntil(() => lockOf(dir)?.pid === next.p.pid && lockOf(dir)?.statusUrl !== undefined, 60_000)).toBe(
      true,
    );
    const s = await daemonStatus(lockOf(dir)!.statusUrl!);
    expect(s?.pid).toBe(next.p.pid);
    expect(
      await waitUntil(
        () => ex.exchange.openOrders(address).length > 0 && logLines(next.err()).some((l) => l.msg === 'status'),
        120_000,
      ),
      next.err().slice(-2000),
    ).toBe(true);

    next.p.kill('SIGTERM');
    expect(await exited(next.p), next.err().slice(-3000)).toBe(0);
    expect(next.out()).toContain('open orders left  0');
    expect(ex.exchange.openOrders(address)).toEqual([]);
    expect(existsSync(join(dir, 'daemon.lock'))).toBe(false);
  }, 300_000);
});
