/**
 * `mmkit kill` and the daemon's control token (issue 16, defect 6), through the CLI and a paper
 * exchange the test watches:
 *  - the daemon writes its control token to `<dataDir>/control.token` (0600) and answers only the
 *    host names it knows (a configured `MMKIT_STATUS_ALLOWED_HOSTS` name too);
 *  - `mmkit kill` from elsewhere (another data dir) without the token, or with a wrong one (flag or
 *    MMKIT_CONTROL_TOKEN), exits 1 saying why, and the daemon keeps quoting;
 *  - with the token in MMKIT_CONTROL_TOKEN it stops the daemon flat (exit 0), and the token is never
 *    printed, by the CLI or the daemon; the daemon removes its token file at exit.
 * (`mmkit kill --data-dir DIR`, reading the token file: test/e2e/cli-run-lock.test.ts, cli-run-status.test.ts.)
 */
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BotHarness, exited, waitForQuotes, waitUntil } from './support/bot-harness.ts';
import { runMmkit } from './support/cli.ts';

const h = new BotHarness();
afterAll(() => h.close());

/** GET `path` with a given Host header; resolves with the status. */
function statusWithHost(url: string, path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request({ host: u.hostname, port: u.port, path, headers: { host }, setHost: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('mmkit kill: the control token', () => {
  it('is refused without the token or with a wrong one, stops the daemon with MMKIT_CONTROL_TOKEN', async () => {
    const { ex, base } = await h.exchange(31);
    const { dir, address } = h.dataDir();
    const bot = h.startBot(base, dir, ['--duration', '600s'], { MMKIT_STATUS_ALLOWED_HOSTS: 'mmkit-box.test:9000' });
    expect(await waitForQuotes(ex, address, 120_000), bot.err().slice(-2000)).toBeGreaterThan(0);
    const statusUrl = (): string | undefined => {
      try {
        return (JSON.parse(readFileSync(join(dir, 'daemon.json'), 'utf8')) as { statusUrl?: string }).statusUrl;
      } catch {
        return undefined;
      }
    };
    expect(await waitUntil(() => statusUrl() !== undefined, 60_000)).toBe(true);
    const url = statusUrl()!;
    const file = join(dir, 'control.token');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const token = readFileSync(file, 'utf8').trim();
    expect(token).toMatch(/^[0-9a-f]{64}$/);

    // the Host check, with the configured name
    expect(await statusWithHost(url, '/api/status', 'evil.example')).toBe(421);
    expect(await statusWithHost(url, '/api/status', 'mmkit-box.test:9000')).toBe(200);
    expect(await statusWithHost(url, '/api/status', 'mmkit-box.test:9001')).toBe(421);

    // from "another host": the daemon's URL, but not its data dir
    const elsewhere = mkdtempSync(join(tmpdir(), 'mmkit-e2e-other-'));
    const outputs: string[] = [];
    const none = await runMmkit(['kill', '--url', url, '--data-dir', elsewhere]);
    outputs.push(none.out, none.err);
    expect(none.code, none.err + none.out).toBe(1);
    expect(none.err).toContain('no control token');
    expect(none.err).toContain('MMKIT_CONTROL_TOKEN');
    const wrongEnv = await runMmkit(['kill', '--url', url, '--data-dir', elsewhere], {
      env: { MMKIT_CONTROL_TOKEN: '0'.repeat(64) },
    });
    outputs.push(wrongEnv.out, wrongEnv.err);
    expect(wrongEnv.code, wrongEnv.err + wrongEnv.out).toBe(1);
    expect(wrongEnv.err).toContain('was refused');
    const wrongFlag = await runMmkit(['kill', '--url', url, '--data-dir', elsewhere, '--token', 'nope-nope-nope']);
    outputs.push(wrongFlag.out, wrongFlag.err);
    expect(wrongFlag.code).toBe(1);
    expect(wrongFlag.err).toContain('refused');
    // the daemon runs on, still quoting, its kill switch armed
    expect(bot.p.exitCode).toBe(null);
    const st = (await (await fetch(`${url}/api/status`)).json()) as { killSwitch: { tripped: boolean } };
    expect(st.killSwitch.tripped).toBe(false);
    expect(ex.exchange.openOrders(address).length).toBeGreaterThan(0);

    // with the token in the environment: stopped flat
    const killed = await runMmkit(['kill', '--url', url, '--data-dir', elsewhere, '--json'], {
      env: { MMKIT_CONTROL_TOKEN: token },
    });
    outputs.push(killed.out, killed.err);
    expect(killed.code, killed.err + killed.out).toBe(0);
    expect(JSON.parse(killed.out)).toMatchObject({ killed: true, flat: true, openOrders: 0 });
    expect(await exited(bot.p), bot.err().slice(-3000)).toBe(0);
    expect(bot.out()).toContain('kill switch over HTTP');
    expect(ex.exchange.openOrders(address)).toEqual([]);
    expect(existsSync(file)).toBe(false);
    // the token never printed
    for (const o of [...outputs, bot.out(), bot.err()]) expect(o).not.toContain(token);
  }, 300_000);
});
