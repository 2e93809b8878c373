/**
 * What a venue answers reaches the operator's terminal safe and short (trial 7 F5, F6): a tiny local
 * HTTP server stands for a wrong venue URL (a hostile or captive-portal host) and answers every
 * request 404, with a body of terminal escape codes (a window title by OSC, a colour by CSI), or
 * with an HTML page. `mmkit doctor`'s table and `mmkit run`'s pre-flight refusal print what it
 * answered with the control characters spelt out (no ESC nor BEL byte on stdout or stderr), and an
 * HTML page as one short line naming it, not the page.
 */
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMmkit } from './support/cli.ts';

const HOSTILE = 'nope \u001b]0;pwned\u0007\u001b[31mRED\u001b[0m end';
const PAGE = `<!DOCTYPE HTML>\n<html lang="en">\n    <head>\n<title>Error response</title>\n</head>\n<body>${'<p>Nothing matches the given URI</p>\n'.repeat(20)}</body></html>\n`;
/** Any byte a terminal acts on but the newline. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

let servers: Server[] = [];
const urls: { hostile: string; html: string } = { hostile: '', html: '' };

async function venue(body: string, type: string): Promise<string> {
  const s = createServer((_q, r) => {
    r.writeHead(404, { 'content-type': type });
    r.end(body);
  });
  servers.push(s);
  await new Promise<void>((res) => s.listen(0, '127.0.0.1', res));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  urls.hostile = await venue(HOSTILE, 'text/plain');
  urls.html = await venue(PAGE, 'text/html');
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((res) => s.close(res))));
  servers = [];
});

const env = () => ({ MMKIT_PRIVATE_KEY: Wallet.createRandom().privateKey, MMKIT_LOG_FORMAT: 'json' });
const dataDir = () => mkdtempSync(join(tmpdir(), 'mmkit-venue-text-'));

describe("a venue's error text on the operator's terminal", () => {
  it('mmkit doctor: the escape codes of a body are spelt out, never printed raw (exit 3)', async () => {
    const r = await runMmkit(['doctor', '--exchange-url', urls.hostile, '--data-dir', dataDir()], { env: env() });
    expect(r.code, r.err).toBe(3);
    expect(r.out).toMatch(/^FAIL {2}api\.clob .*GET \/: 404: nope \\x1b\]0;pwned\\x07\\x1b\[31mRED\\x1b\[0m end$/m);
    expect(r.out).not.toMatch(RAW_CONTROL);
    expect(r.err).not.toMatch(RAW_CONTROL);
  });

  it("mmkit run: the pre-flight refusal spells them out too (exit 3), and the JSON log keeps JSON's escapes", async () => {
    const r = await runMmkit(
      ['run', '--exchange-url', urls.hostile, '--data-dir', dataDir(), '--duration', '5s', '--http-port', '0'],
      { env: env(), timeoutMs: 90_000 },
    );
    expect(r.code, r.err).toBe(3);
    expect(r.err).toMatch(/pre-flight checks failed, not starting/);
    expect(r.err).toMatch(/^ {2}FAIL api\.gamma: .*404: nope \\x1b\]0;pwned\\x07\\x1b\[31mRED/m);
    expect(r.out).not.toMatch(RAW_CONTROL);
    expect(r.err).not.toMatch(RAW_CONTROL);
  });

  it('an HTML page (a wrong URL) is named on one line per check, not dumped', async () => {
    const r = await runMmkit(['doctor', '--exchange-url', urls.html, '--data-dir', dataDir()], { env: env() });
    expect(r.code, r.err).toBe(3);
    for (const api of ['clob', 'gamma', 'data'])
      expect(r.out).toMatch(
        new RegExp(`^FAIL {2}api\\.${api} .*: 404: an HTML page, not the venue's JSON \\(is the URL right\\?\\)$`, 'm'),
      );
    expect(r.out).not.toMatch(/DOCTYPE|<html|Nothing matches/);
    const run = await runMmkit(
      ['run', '--exchange-url', urls.html, '--data-dir', dataDir(), '--duration', '5s', '--http-port', '0'],
      { env: env(), timeoutMs: 90_000 },
    );
    expect(run.code, run.err).toBe(3);
    const refusal = run.err.slice(run.err.indexOf('pre-flight checks failed'));
    expect(refusal).toMatch(/FAIL api\.clob: .*an HTML page, not the venue's JSON/);
    expect(refusal).not.toMatch(/DOCTYPE|<html|Nothing matches/);
  });
});
