import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/cli/config.ts';
import { withSession } from '../../../src/cli/common.ts';
import { venueCommandConfig } from '../../../src/cli/data-dir-venue.ts';
import { storeVenue } from '../../../src/cli/positions.ts';
import { resolveVenue } from '../../../src/cli/venue.ts';
import { openStore } from '../../../src/store/store.ts';

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
    expect(r.inProcess).toBeUndefined();
  });

  it("marks a venue that was a gone daemon's in-process paper exchange (the epoch's inprocess:, venue.json's inProcess)", () => {
    const d = mkdtempSync(join(tmpdir(), 'mmkit-posv-'));
    expect(storeVenue(cfgOf(d), 'inprocess:http://127.0.0.1:9123/clob#137')).toEqual({
      cfg: expect.anything(),
      from: "the store's ledger epoch",
      clob: 'http://127.0.0.1:9123/clob',
      inProcess: true,
    });
    expect(storeVenue(cfgOf(d), 'http://127.0.0.1:9123/clob#137').inProcess).toBeUndefined();
    const pid = 2 ** 22 + 98;
    writeFileSync(join(d, 'venue.json'), JSON.stringify({ url: 'http://127.0.0.1:9200', pid, inProcess: true }));
    expect(storeVenue(cfgOf(d), 'http://127.0.0.1:9123/clob#137')).toMatchObject({
      clob: 'http://127.0.0.1:9200/clob',
      inProcess: true,
    });
  });
});

describe('venueCommandConfig (orders, cancel-all, positions with --data-dir)', () => {
  const cfgOf = (dir: string) => loadConfig(undefined, { 'bot.dataDir': dir }, {});
  it("connects to nothing when the recorded venue was a gone daemon's in-process exchange, and says why", async () => {
    const d = mkdtempSync(join(tmpdir(), 'mmkit-vcc-'));
    const s = openStore(join(d, 'mmkit.db'));
    s.openEpoch({ venue: 'inprocess:http://127.0.0.1:9123/clob#137', world: 'w', address: '0xab' });
    s.close();
    const notes: string[] = [];
    const t = await venueCommandConfig(cfgOf(d), (m) => notes.push(m));
    expect(t.ended).toContain(
      "http://127.0.0.1:9123/clob (from the store's ledger epoch), was its daemon's paper exchange",
    );
    expect(t.cfg.bot.exchangeUrl).toBe('');
    expect(notes).toEqual([]);
    // an external venue's epoch: asked, with the note
    const e = mkdtempSync(join(tmpdir(), 'mmkit-vcc-'));
    const s2 = openStore(join(e, 'mmkit.db'));
    s2.openEpoch({ venue: 'http://127.0.0.1:9123/clob#137', world: 'w', address: '0xab' });
    s2.close();
    const u = await venueCommandConfig(cfgOf(e), (m) => notes.push(m));
    expect(u.ended).toBeUndefined();
    expect(u.cfg.venue.clobUrl).toBe('http://127.0.0.1:9123/clob');
    expect(notes[0]).toContain('asking the venue it last traded on, http://127.0.0.1:9123/clob');
  });
});

describe('venueCommandConfig: whether the recorded daemon lives is decided once (findings-6 F8)', () => {
  const cfgOf = (dir: string) => loadConfig(undefined, { 'bot.dataDir': dir }, {});
  it('a daemon alive at the first check and gone at the next: the session still asks the venue it recorded', async () => {
    const d = mkdtempSync(join(tmpdir(), 'mmkit-vcc-'));
    // a killed daemon's record; its pid answers once (a zombie not yet reaped), then is gone
    const pid = 2 ** 22 + 97;
    writeFileSync(join(d, 'venue.json'), JSON.stringify({ url: 'http://127.0.0.1:9200', pid }));
    const asked: number[] = [];
    const alive = (p: number): boolean => {
      asked.push(p);
      return asked.length === 1;
    };
    const t = await venueCommandConfig(cfgOf(d), () => undefined, { alive });
    expect(t.venue).toMatchObject({ source: 'daemon', urls: { clob: 'http://127.0.0.1:9200/clob' } });
    // the session (no network without auth) takes that decision and asks nothing again
    const clob = await withSession(t.cfg, { auth: false, venue: t.venue }, async (s) => s.venue.urls.clob);
    expect(clob).toBe('http://127.0.0.1:9200/clob');
    expect(asked).toEqual([pid]);
    // (resolving again, as the commands did, finds the pid gone and falls to the default address)
    expect(resolveVenue(t.cfg, { alive }).source).toBe('default');
  });
});
