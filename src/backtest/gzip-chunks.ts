/**
 * A feed file's bytes as chunks (./feed-file-source.ts reads them into lines), and how a gzip
 * stream's damage is told apart:
 *
 *  - gzip or plain text is told by the gzip magic bytes at the start of the file, not by its name;
 *  - a gzip stream that ends early (no trailer: a recording still being written, or one a crash cut
 *    short) fails with zlib's Z_BUF_ERROR after everything before the cut was decoded: nothing is
 *    lost, the file is only incomplete (ReplayOptions.endedEarly, ./replay.ts);
 *  - any other zlib error is corrupt data inside the stream: zlib drops the output of the call that
 *    failed, which the reader recovers with a second pass in small inflate chunks;
 *  - an error that is not zlib's is the file system's (a usage error, thrown).
 *
 * ChunkQueue hands out every chunk emitted before an error before the error itself, so a damaged
 * stream gives everything decoded up to the damage.
 */
import type { FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { createGunzip, type Gunzip } from 'node:zlib';

/**
 * True when the open file starts with the gzip magic bytes (0x1f 0x8b).
 * @throws the file system's error when it cannot be read
 */
export async function startsWithGzipMagic(fh: FileHandle): Promise<boolean> {
  const head = Buffer.alloc(2);
  const { bytesRead } = await fh.read(head, 0, 2, 0);
  return bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/**
 * A gunzip stream fed from `raw` (inflating `chunkSize` bytes a call). A read error of `raw` goes to
 * `onReadError` first and then fails the gunzip stream with it.
 */
export function gunzipOf(raw: Readable, chunkSize: number, onReadError: (err: Error) => void): Gunzip {
  const g = createGunzip({ chunkSize });
  raw.on('error', (err) => {
    onReadError(err);
    g.destroy(err);
  });
  raw.pipe(g);
  return g;
}

/**
 * What a gzip stream's error says of the file (see the module comment): 'endedEarly' (Z_BUF_ERROR:
 * no trailer, nothing decoded lost), 'corrupt' (another zlib error), or undefined when it is not
 * zlib's (the file system's).
 */
export function gzipDamage(err: unknown): 'endedEarly' | 'corrupt' | undefined {
  if (!isZlibError(err)) return undefined;
  return (err as { code: string }).code === 'Z_BUF_ERROR' ? 'endedEarly' : 'corrupt';
}

/** Errors of zlib (damaged data), as opposed to the file system's. */
function isZlibError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('Z_');
}

/**
 * The chunks of a readable, pulled one at a time, with backpressure (paused above HIGH_WATER bytes
 * queued). Unlike the stream's own async iterator, chunks emitted before an error are all handed
 * out before the error is: a damaged gzip stream gives everything decoded up to the damage.
 */
export class ChunkQueue {
  private static readonly HIGH_WATER = 1024 * 1024;
  private readonly q: Buffer[] = [];
  private bytes = 0;
  private ended = false;
  private error: unknown;
  private failed = false;
  private wake: (() => void) | undefined;

  constructor(private readonly s: Readable) {
    s.on('data', (c: Buffer) => {
      this.q.push(c);
      this.bytes += c.length;
      if (this.bytes > ChunkQueue.HIGH_WATER) s.pause();
      this.notify();
    });
    s.on('end', () => {
      this.ended = true;
      this.notify();
    });
    s.on('error', (err) => {
      if (!this.failed) {
        this.failed = true;
        this.error = err;
      }
      this.notify();
    });
    s.on('close', () => {
      this.ended = true;
      this.notify();
    });
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  async next(): Promise<IteratorResult<Buffer>> {
    for (;;) {
      const c = this.q.shift();
      if (c !== undefined) {
        this.bytes -= c.length;
        if (this.bytes <= ChunkQueue.HIGH_WATER / 2 && this.s.isPaused()) this.s.resume();
        return { done: false, value: c };
      }
      if (this.failed) throw this.error;
      if (this.ended) return { done: true, value: undefined };
      await new Promise<void>((r) => (this.wake = r));
    }
  }
}
