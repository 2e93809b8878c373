import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createWriteStream,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, createGzip, gzipSync } from 'node:zlib';
import { once } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  frameLine,
  headerLine,
  statusLine,
  stringFrameLine,
  type FeedHeader,
  type FeedItem,
} from '../../../src/venues/sim/feed.ts';
import { newReplayStats, readFeedHeader, replayFeedBatches, replayFeeds } from '../../../src/backtest/replay.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-replay-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const header = (t: number, part = 0): FeedHeader => ({
  h: 1,
  t,
  part,
  source: 'test',
  recorder: 'mmkit/0.1.0',
  markets: [],
});
const frame = (t: number, tag: string, ch: 'm' | 'r' = 'm') => frameLine(t, ch, JSON.stringify({ tag }));
let seq = 0;
const path = (name: string) => join(dir, `${++seq}-${name}`);

function writeGz(name: string, lines: string[]): string {
  const p = path(name);
  writeFileSync(p, gzipSync(lines.join('\n') + '\n'));
  return p;
}

async function collect(files: string[], opts: Parameters<typeof replayFeeds>[1] = {}): Promise<FeedItem[]> {
  const out: FeedItem[] = [];
  for await (const it of replayFeeds(files, opts)) out.push(it);
  return out;
}
const tags = (items: FeedItem[]) =>
  items.map((i) =>
    i.kind === 'frame'
      ? (JSON.parse(i.raw) as { tag: string }).tag
      : i.kind === 'status'
        ? `${i.status}`
        : i.kind === 'market'
          ? `M${i.info.market}`
          : `H${i.header.part}`,
  );

describe('replayFeeds: merge by receive time', () => {
  it('merges several files by t; ties go to the earlier file, then the earlier line', async () => {
    const a = writeGz('a.ndjson.gz', [
      headerLine(header(0)),
      frame(1, 'a1'),
      frame(3, 'a3'),
      frame(5, 'a5x'),
      frame(5, 'a5y'),
      frame(9, 'a9'),
    ]);
    const b = writeGz('b.ndjson.gz', [
      headerLine(header(0, 1)),
      frame(2, 'b2'),
      frame(5, 'b5'),
      frame(5.0005, 'b5.0005'),
      frame(10, 'b10'),
    ]);
    const c = writeGz('c.ndjson.gz', [frame(0.5, 'c0.5'), frame(5, 'c5'), frame(5, 'c5y'), frame(11, 'c11')]);
    const stats = newReplayStats();
    const items = await collect([a, b, c], { stats });
    expect(tags(items)).toEqual([
      'H0',
      'H1',
      'c0.5',
      'a1',
      'b2',
      'a3',
      'a5x',
      'a5y',
      'b5',
      'c5',
      'c5y',
      'b5.0005',
      'a9',
      'b10',
      'c11',
    ]);
    expect(stats).toEqual({ lines: 15, frames: 13, statuses: 0, headers: 2, malformed: 0, truncatedFiles: 0 });
    // the order of the file list decides ties
    const rev = await collect([c, b, a]);
    expect(tags(rev).filter((t) => t.startsWith('a5') || t.startsWith('b5') || t.startsWith('c5'))).toEqual([
      'c5',
      'c5y',
      'b5',
      'a5x',
      'a5y',
      'b5.0005',
    ]);
  });

  it('rotated parts (consecutive in time) come out part after part', async () => {
    const p0 = writeGz('rec.ndjson.gz', [headerLine(header(100, 0)), frame(101, 'x1'), frame(102, 'x2')]);
    const p1 = writeGz('rec.1.ndjson.gz', [
      headerLine(header(102.5, 1)),
      frame(103, 'x3'),
      statusLine(104, 'm', 'disconnect', 'gone'),
      statusLine(105, 'm', 'connect'),
    ]);
    // listed in any order: the times decide
    const items = await collect([p1, p0]);
    expect(tags(items)).toEqual(['H0', 'x1', 'x2', 'H1', 'x3', 'disconnect', 'connect']);
    expect(items[5]).toEqual({ kind: 'status', t: 104, ch: 'm', status: 'disconnect', reason: 'gone' });
  });

  it('many interleaved files give a globally sorted stream (property over random inputs)', async () => {
    const files: string[] = [];
    const all: Array<{ t: number; f: number; l: number }> = [];
    let s = 7;
    const rnd = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;
    for (let f = 0; f < 7; f++) {
      let t = 0;
      const lines: string[] = [];
      for (let l = 0; l < 3000; l++) {
        t += Math.floor(rnd() * 4) / 2; // many ties
        lines.push(frameLine(t, 'm', JSON.stringify({ tag: `${f}:${l}` })));
        all.push({ t, f, l });
      }
      files.push(writeGz(`p${f}.ndjson.gz`, lines));
    }
    all.sort((x, y) => x.t - y.t || x.f - y.f || x.l - y.l);
    const got: string[] = [];
    for await (const b of replayFeedBatches(files, { batchSize: 97 })) for (const it of b) got.push(tags([it])[0]!);
    expect(got).toEqual(all.map((x) => `${x.f}:${x.l}`));
  });
});

describe('replayFeeds: damage', () => {
  it('skips and counts malformed lines; blank lines are not lines', async () => {
    const f = writeGz('bad.ndjson.gz', [
      headerLine(header(0)),
      frame(1, 'ok1'),
      'garbage',
      '',
      '{"t":2,"c":"m"}',
      '   ',
      '{"t":"3","c":"m","f":{}}',
      frame(4, 'ok4'),
      '{"t":5,"c":"m","f":{"a"',
      statusLine(6, 'r', 'connect', 'x'),
    ]);
    const stats = newReplayStats();
    const items = await collect([f], { stats });
    expect(tags(items)).toEqual(['H0', 'ok1', 'ok4', 'connect']);
    expect(stats.malformed).toBe(4);
    expect(stats.lines).toBe(8); // blank and whitespace-only lines are not lines
  });

  it('reads a gzip stream that ends early (a crash) up to the damage, counted, not thrown', async () => {
    // written as the recorder writes: lines, then a sync flush, and the process dies before the end
    const p = path('crash.ndjson.gz');
    const gz = createGzip();
    const out = createWriteStream(p);
    gz.pipe(out);
    gz.write(headerLine(header(0)) + '\n');
    for (let i = 1; i <= 1000; i++) gz.write(frame(i, `f${i}`) + '\n');
    await new Promise<void>((r) => gz.flush(constants.Z_SYNC_FLUSH, () => r()));
    for (let i = 1001; i <= 1010; i++) gz.write(frame(i, `late${i}`) + '\n'); // never flushed
    await new Promise((r) => setTimeout(r, 50));
    gz.unpipe(out);
    out.end();
    await once(out, 'close');
    const stats = newReplayStats();
    const items = await collect([p], { stats });
    expect(items).toHaveLength(1001);
    expect(tags(items).at(-1)).toBe('f1000');
    expect(stats.truncatedFiles).toBe(1);
    expect(stats.malformed).toBe(0);
  });

  it('a file cut at any byte: never throws, hands out a prefix of the lines, counts the damage', async () => {
    const lines = [headerLine(header(0)), ...Array.from({ length: 400 }, (_, i) => frame(i + 1, `f${i + 1}`))];
    const whole = gzipSync(lines.join('\n') + '\n', { level: 1 });
    const expected = tags(await collect([writeGz('whole.ndjson.gz', lines)]));
    for (const cut of [10, 200, Math.floor(whole.length / 2), whole.length - 9, whole.length - 1]) {
      const p = path(`cut${cut}.ndjson.gz`);
      writeFileSync(p, whole.subarray(0, cut));
      const stats = newReplayStats();
      const got = tags(await collect([p], { stats }));
      expect(got).toEqual(expected.slice(0, got.length));
      expect(stats.truncatedFiles).toBe(1);
    }
  });

  it('corrupt compressed data in the middle: the lines before it, counted as damage', async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => frame(i + 1, `f${i + 1}-${'x'.repeat(i % 50)}`));
    const first = gzipSync(lines.slice(0, 1500).join('\n') + '\n');
    const second = Buffer.from(gzipSync(lines.slice(1500).join('\n') + '\n'));
    for (let i = 40; i < 80; i++) second[i] = second[i]! ^ 0x5a; // damage inside the second member
    const p = path('corrupt.ndjson.gz');
    writeFileSync(p, Buffer.concat([first, second]));
    const stats = newReplayStats();
    const items = await collect([p], { stats });
    // all but the last few hundred bytes before the damage (zlib drops the output of the call that
    // failed; replay decodes again in tiny chunks to get the rest)
    expect(items.length).toBeGreaterThanOrEqual(1495);
    expect(items.length).toBeLessThan(3000);
    expect(tags(items)).toEqual(lines.slice(0, items.length).map((_, i) => `f${i + 1}-${'x'.repeat(i % 50)}`));
    expect(stats.truncatedFiles).toBe(1);
  });

  it('corrupt data early in a large file: no file handle stays open after the replay (the second pass too)', async () => {
    // the damage near the start, a megabyte of data after it: both passes stop at the damage with
    // most of the file unread, so their read streams must be closed, not left paused on the file
    let x = 7;
    const noise = () => (x = (x * 1103515245 + 12345) & 0x7fffffff).toString(36);
    const lines = Array.from({ length: 40_000 }, (_, i) => frame(i + 1, `f${i + 1}-${noise()}${noise()}`));
    const first = gzipSync(lines.slice(0, 200).join('\n') + '\n');
    const second = Buffer.from(gzipSync(lines.slice(200).join('\n') + '\n'));
    for (let i = 40; i < 80; i++) second[i] = second[i]! ^ 0x5a;
    const p = path('corrupt-large.ndjson.gz');
    writeFileSync(p, Buffer.concat([first, second]));
    expect(statSync(p).size).toBeGreaterThan(512 * 1024);
    const openOnFile = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === p;
        } catch {
          return false; // (closed between the listing and the read)
        }
      }).length;
    const stats = newReplayStats();
    const items = await collect([p], { stats });
    expect(items.length).toBeGreaterThanOrEqual(195);
    expect(items.length).toBeLessThan(40_000);
    expect(stats.truncatedFiles).toBe(1);
    await new Promise((r) => setTimeout(r, 50)); // (a stream's close is reported on a later tick)
    expect(openOnFile()).toBe(0);
  });

  it('a missing file throws (a usage error, not damage)', async () => {
    await expect(collect([join(dir, 'nope.ndjson.gz')])).rejects.toThrow(/ENOENT/);
  });
});

describe('replayFeeds: formats and streaming', () => {
  it('reads plain .ndjson, CRLF line ends and a last line without a newline', async () => {
    const p = path('plain.ndjson');
    writeFileSync(p, [headerLine(header(0)), frame(1, 'a'), frame(2, 'b')].join('\r\n') + '\r\n' + frame(3, 'c'));
    const stats = newReplayStats();
    const items = await collect([p], { stats });
    expect(tags(items)).toEqual(['H0', 'a', 'b', 'c']);
    expect(stats.malformed).toBe(0);
    // a plain file and a gzip file merge together
    const g = writeGz('g.ndjson.gz', [frame(1.5, 'g')]);
    expect(tags(await collect([p, g]))).toEqual(['H0', 'a', 'g', 'b', 'c']);
  });

  it('receive times are the exact doubles of the recorded decimals (fast path = Number(text))', async () => {
    let x = 99;
    const rnd = (n: number) => (x = (x * 1103515245 + 12345) & 0x7fffffff) % n;
    const ts: string[] = [];
    let base = 1_700_000_000_000;
    for (let i = 0; i < 20_000; i++) {
      base += rnd(50);
      const fl = rnd(4);
      ts.push(fl === 0 ? String(base) : `${base}.${String(rnd(10 ** fl)).padStart(fl, '0')}`);
    }
    ts.push('8999999999999.999', '9000000000000.001', '999999999999999.5', '0.5', '0');
    ts.sort((a, b) => Number(a) - Number(b));
    const p = path('times.ndjson');
    writeFileSync(p, ts.map((t) => `{"t":${t},"c":"m","f":{"x":1}}`).join('\n') + '\n');
    const got = (await collect([p])).map((i) => i.t);
    expect(got).toEqual(ts.map(Number));
  });

  it('reads concatenated gzip members (a recording appended to) as one stream', async () => {
    const p = path('members.ndjson.gz');
    writeFileSync(
      p,
      Buffer.concat([gzipSync(frame(1, 'a') + '\n'), gzipSync(frame(2, 'b') + '\n' + frame(3, 'c') + '\n')]),
    );
    expect(tags(await collect([p]))).toEqual(['a', 'b', 'c']);
  });

  it('keeps raw frames byte-exact across chunk boundaries: long lines, multi-byte characters, the s form', async () => {
    const p = path('big.ndjson.gz');
    const gz = createGzip({ level: 1 });
    const out = createWriteStream(p);
    gz.pipe(out);
    const expected: string[] = [];
    const N = 60_000;
    for (let i = 0; i < N; i++) {
      let raw: string;
      if (i % 10_000 === 5)
        raw = JSON.stringify({ big: 'é☃'.repeat(150_000), i }); // ~750 KB line: spans many chunks
      else if (i % 7 === 0) raw = JSON.stringify({ q: `ünïcødé ${'🙂'.repeat(i % 13)} ${i}` });
      else raw = JSON.stringify({ event_type: 'price_change', i, pad: 'p'.repeat(i % 300) });
      const line = i % 11 === 0 ? stringFrameLine(i, 'm', `not json ${raw}`) : frameLine(i, 'm', raw);
      expected.push(i % 11 === 0 ? `not json ${raw}` : raw);
      if (!gz.write(line + '\n')) await once(gz, 'drain');
    }
    gz.end();
    await once(out, 'close');
    expect(statSync(p).size).toBeGreaterThan(300 * 1024); // larger than a read chunk, compressed
    const stats = newReplayStats();
    let k = 0;
    let mismatches = 0;
    for await (const it of replayFeeds([p], { stats })) {
      if (it.kind !== 'frame' || it.raw !== expected[k] || it.t !== k) mismatches++;
      k++;
    }
    expect(mismatches).toBe(0);
    expect(k).toBe(N);
    expect(stats).toMatchObject({ lines: N, frames: N, malformed: 0, truncatedFiles: 0 });
  });

  it('filters by channel; headers always pass', async () => {
    const f = writeGz('ch.ndjson.gz', [
      headerLine(header(0)),
      frame(1, 'm1'),
      frame(2, 'r2', 'r'),
      statusLine(3, 'r', 'disconnect', ''),
      statusLine(4, 'm', 'disconnect', ''),
      frame(5, 'm5'),
    ]);
    const stats = newReplayStats();
    const items = await collect([f], { channels: ['r'], stats });
    expect(items.map((i) => (i.kind === 'header' ? 'H' : `${i.kind}:${i.t}`))).toEqual(['H', 'frame:2', 'status:3']);
    expect(stats).toMatchObject({ lines: 6, frames: 1, statuses: 1, headers: 1 });
  });

  it('replayFeedBatches hands out the same items in the same order, in non-empty batches', async () => {
    const files = [0, 1, 2].map((f) =>
      writeGz(
        `bb${f}.ndjson.gz`,
        Array.from({ length: 5000 }, (_, i) => frame(i * 3 + f, `${f}:${i}`)),
      ),
    );
    const one = tags(await collect(files));
    const batched: string[] = [];
    let batches = 0;
    for await (const b of replayFeedBatches(files, { batchSize: 1000 })) {
      expect(b.length).toBeGreaterThan(0);
      expect(b.length).toBeLessThanOrEqual(1000);
      batches++;
      batched.push(...tags(b));
    }
    expect(batched).toEqual(one);
    expect(batches).toBeGreaterThanOrEqual(15);
  });

  it('a break out of the loop closes the files; nothing is read before the first next()', async () => {
    const f = writeGz(
      'brk.ndjson.gz',
      Array.from({ length: 10_000 }, (_, i) => frame(i, `${i}`)),
    );
    const stats = newReplayStats();
    const it = replayFeeds([f, join(dir, 'does-not-exist')], { stats });
    expect(stats.lines).toBe(0); // lazy: the missing file is not even opened yet
    await expect(it.next()).rejects.toThrow(/ENOENT/);
    let n = 0;
    for await (const _ of replayFeeds([f])) if (++n === 10) break;
    expect(n).toBe(10);
  });

  it('memory stays flat: a feed far larger than what the heap grows by', async () => {
    const p = path('flat.ndjson.gz');
    const gz = createGzip({ level: 1 });
    const out = createWriteStream(p);
    gz.pipe(out);
    const pad = 'z'.repeat(400);
    let bytes = 0;
    for (let i = 0; i < 200_000; i++) {
      const line = frameLine(i, 'm', `{"i":${i},"s":"${pad}${i}"}`) + '\n';
      bytes += line.length;
      if (!gz.write(line)) await once(gz, 'drain');
    }
    gz.end();
    await once(out, 'close');
    expect(bytes).toBeGreaterThan(80e6);
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const base = process.memoryUsage().heapUsed;
    let peak = 0;
    let n = 0;
    for await (const b of replayFeedBatches([p])) {
      n += b.length;
      if ((n & 0x7fff) < b.length) {
        gc();
        peak = Math.max(peak, process.memoryUsage().heapUsed - base);
      }
    }
    expect(n).toBe(200_000);
    expect(peak).toBeLessThan(20e6); // a replay that held the file would need > 80 MB of strings
  });

  it('readFeedHeader reads the header of a file', async () => {
    const h = header(42, 3);
    const f = writeGz('hdr.ndjson.gz', [headerLine(h), frame(43, 'x')]);
    expect(await readFeedHeader(f)).toEqual(h);
    expect(await readFeedHeader(writeGz('nohdr.ndjson.gz', [frame(1, 'x')]))).toBeUndefined();
    expect(readFileSync(f).length).toBeGreaterThan(0);
  });
});
