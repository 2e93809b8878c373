/**
 * The recorder's file writer (see ./recorder.ts for the recording as a whole): append-only gzip NDJSON
 * parts with periodic Z_SYNC_FLUSHes (a crash loses at most the last flush interval), rotation by
 * compressed size and/or age (part N+1 starts with its own header), files created exclusively; and
 * the names of a recording's parts (`partPath`, `recordingParts`).
 */
import { createWriteStream, existsSync, openSync, type WriteStream } from 'node:fs';
import { constants as zc, createGzip, type Gzip } from 'node:zlib';
import type { Clock, TimerHandle } from '../core/clock.ts';
import { headerLine, type FeedHeader } from '../venues/sim/feed.ts';

/**
 * The path of part `part` of a recording written to `out`: `out` itself for part 0, else
 * `<base>.<part>.ndjson.gz` (base: `out` without `.ndjson.gz`, or without `.gz`).
 */
export function partPath(out: string, part: number): string {
  if (part === 0) return out;
  const base = out.endsWith('.ndjson.gz')
    ? out.slice(0, -'.ndjson.gz'.length)
    : out.endsWith('.gz')
      ? out.slice(0, -'.gz'.length)
      : out;
  return `${base}.${part}.ndjson.gz`;
}

/** The parts of a recording that exist on disk, in part order (part 0 first). */
export function recordingParts(out: string): string[] {
  const files: string[] = [];
  for (let p = 0; existsSync(partPath(out, p)); p++) files.push(partPath(out, p));
  return files;
}

// ---- the file writer ---------------------------------------------------------------------------

export interface FeedWriterOptions {
  /** Path of part 0. Created exclusively. */
  out: string;
  /** The header fields every part repeats (`t` and `part` are set per part). */
  header: Omit<FeedHeader, 't' | 'part' | 'h'>;
  now: () => number;
  clock: Clock;
  /** Rotate when the current part holds this many compressed bytes (0: never). */
  rotateBytes?: number;
  /** Rotate when the current part is this old, ms (0: never). */
  rotateMs?: number;
  /** Hand lines to gzip and Z_SYNC_FLUSH this often, ms (default 250). */
  flushIntervalMs?: number;
  /** Called after a new part has started (its header written). */
  onRotate?: (part: number, path: string) => void;
  /** Called once on the first write error (disk full...): nothing more is written. */
  onError?: (err: Error) => void;
}

interface Part {
  path: string;
  gzip: Gzip;
  file: WriteStream;
  bytes: number;
  startedAt: number;
  closed: Promise<void>;
}

/**
 * Append-only gzip NDJSON writer with periodic sync flushes and rotation (see the module comment).
 * `write` never blocks; lines go to gzip in one chunk per flush interval.
 */
export class FeedWriter {
  /** Paths of the parts started so far. */
  readonly files: string[] = [];
  lines = 0;
  /** Uncompressed bytes written (newlines included). */
  rawBytes = 0;
  /** Compressed bytes produced (all parts). */
  diskBytes = 0;
  private part: Part | undefined;
  private partNo = -1;
  private pending: string[] = [];
  private pendingBytes = 0;
  private dirty = false;
  private timer: TimerHandle | undefined;
  private readonly closing: Array<Promise<void>> = [];
  private error: Error | undefined;
  private closed = false;

  constructor(private readonly o: FeedWriterOptions) {}

  /** Creates part 0 and writes its header. @throws when the file exists or cannot be created. */
  open(): void {
    this.startPart(0);
    this.timer = this.o.clock.setInterval(() => this.tick(), this.o.flushIntervalMs ?? 250);
  }

  /** Queues one line (no newline). */
  write(line: string): void {
    if (this.closed || this.error !== undefined) return;
    this.pending.push(line);
    this.pendingBytes += line.length + 1;
    this.lines++;
    if (this.pendingBytes >= 1 << 20) this.drain();
  }

  /** The first write error, if any. */
  get failed(): Error | undefined {
    return this.error;
  }

  /** The part being written. */
  get currentPart(): number {
    return this.partNo;
  }

  /** Hands queued lines to gzip and makes everything so far decodable from the file (Z_SYNC_FLUSH). */
  flush(): void {
    this.drain();
    if (this.dirty && this.part !== undefined && this.error === undefined) {
      this.dirty = false;
      this.part.gzip.flush(zc.Z_SYNC_FLUSH);
    }
  }

  /** Starts the next part now (the current one is finished). */
  rotate(): void {
    if (this.closed || this.error !== undefined) return;
    this.drain();
    this.finishPart();
    try {
      this.startPart(this.partNo + 1);
    } catch (err) {
      this.fail(err as Error); // e.g. the part's file exists: stop writing, never overwrite
    }
  }

  /** Writes what is queued, finishes the gzip stream and closes the file. Idempotent. */
  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      if (this.timer !== undefined) this.o.clock.clearInterval(this.timer);
      this.timer = undefined;
      this.drain();
      this.finishPart();
    }
    await Promise.all(this.closing);
    if (this.error !== undefined) throw this.error;
  }

  private tick(): void {
    if (this.closed) return;
    this.flush();
    const p = this.part;
    if (p === undefined || this.error !== undefined) return;
    const rb = this.o.rotateBytes ?? 0;
    const rm = this.o.rotateMs ?? 0;
    if ((rb > 0 && p.bytes >= rb) || (rm > 0 && this.o.now() - p.startedAt >= rm)) this.rotate();
  }

  private drain(): void {
    if (this.pending.length === 0 || this.part === undefined || this.error !== undefined) return;
    const text = this.pending.join('\n') + '\n';
    this.rawBytes += Buffer.byteLength(text);
    this.pending = [];
    this.pendingBytes = 0;
    this.dirty = true;
    this.part.gzip.write(text);
  }

  private fail(err: Error): void {
    if (this.error !== undefined) return;
    this.error = err;
    this.pending = [];
    this.o.onError?.(err);
  }

  private startPart(n: number): void {
    const path = partPath(this.o.out, n);
    const fd = openSync(path, 'wx'); // exclusive: never appends to or overwrites a recording
    const gzip = createGzip({ level: 6 });
    const file = createWriteStream('', { fd, flags: 'w' });
    const startedAt = this.o.now();
    const part: Part = {
      path,
      gzip,
      file,
      bytes: 0,
      startedAt,
      closed: new Promise<void>((resolve) => {
        file.once('close', () => resolve());
      }),
    };
    gzip.on('data', (c: Buffer) => {
      part.bytes += c.length;
      this.diskBytes += c.length;
    });
    gzip.on('error', (err) => {
      this.fail(err);
      file.destroy(); // the part's `closed` settles: close() never hangs on a broken stream
    });
    file.on('error', (err) => {
      this.fail(err);
      file.destroy();
    });
    gzip.pipe(file);
    this.part = part;
    this.partNo = n;
    this.files.push(path);
    const header: FeedHeader = {
      h: 1,
      t: startedAt,
      part: n,
      source: this.o.header.source,
      recorder: this.o.header.recorder,
      ...(this.o.header.protocol !== undefined ? { protocol: this.o.header.protocol } : {}),
      markets: this.o.header.markets,
    };
    this.write(headerLine(header));
    this.drain();
    this.flush();
    this.o.onRotate?.(n, path);
  }

  private finishPart(): void {
    const p = this.part;
    if (p === undefined) return;
    this.part = undefined;
    p.gzip.end();
    this.closing.push(p.closed);
  }
}
