import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/cli/config.ts';
import { storeVenue } from '../../../src/cli/positions.ts';

describe('storeVenue (positions --source store: which venue names the tokens)', () => {
  const cfgOf = (dir: string, over: Record<string, unknown> = {}) =>
    loadConfig(undefined, { 'bot.dataDir': dir, ...over }, {});
  it("the configured venue first; else a gone daemon's venue.json; else the store epoch's venue", () => {
    const d = mkdtempSync(join(tmpdir(), 'mmkit-posv-'));
    // the epoch's venue (a paper exchange's layout, a shadow run's, a live venue's)
    expect(storeVenue(cfgOf(d), 'http://127.0.0.1:9123/clob#137')).toMatchObject({
      from: "the store's ledger epoch",
      clob: 'http://127.0.0.1:9123/clob',
    });
    expect(storeVenue(cfgOf(d), 'shadow:https://clob.example.com#137').clob).toBe('https://clob.example.com');
    // nothing recorded: the default, said as such
    expect(storeVenue(cfgOf(d), 'paper').from).toMatch(/^the default paper exchange/);
    // configured: that one
    expect(
      storeVenue(cfgOf(d, { 'bot.exchangeUrl': 'http://127.0.0.1:9999' }), 'http://127.0.0.1:9123/clob#137'),
    ).toMatchObject({
      from: 'the configuration',
      clob: 'http://127.0.0.1:9999/clob',
    });
    // a crashed daemon's venue.json (its pid is gone) over the epoch
    writeFileSync(join(d, 'venue.json'), JSON.stringify({ url: 'http://127.0.0.1:9200', pid: 2 ** 22 + 99 }));
    const r = storeVenue(cfgOf(d), 'http://127.0.0.1:9123/clob#137');
    expect(r.clob).toBe('http://127.0.0.1:9200/clob');
    expect(r.from).toContain('venue.json');
  });
});
