/**
 * WebSocket wire for the fuzzer, in process: a fake socket (a Duplex that is only a transport)
 * handed to the streams' real `upgrade` handler, client frames encoded by hand (so malformed ones
 * can be sent too) and the server's frames decoded from what it wrote. Everything above the bytes
 * is the exchange's own code: the `ws` server (handshake, frame parser, UTF-8 and size checks),
 * src/exchange/ws/index.ts's message dispatch, the market, user and RTDS channels.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Duplex } from 'node:stream';

/** A client frame as the fuzzer describes it. */
export type ClientFrame =
  /** A text message (UTF-8), possibly split into `fragments` continuation frames. */
  | { t: 'text'; text: string; fragments?: number }
  | { t: 'binary'; bytes: number[] }
  /** Text bytes that are not valid UTF-8. */
  | { t: 'badutf8'; prefix: string }
  /** A text frame of `size` bytes (over the server's maxPayload when large). */
  | { t: 'big'; size: number }
  | { t: 'ping'; payload: string }
  | { t: 'close'; code: number; reason: string }
  /** Raw bytes (a malformed frame header, an unmasked frame, a reserved opcode...). */
  | { t: 'raw'; bytes: number[] };

/** One server frame, decoded. */
export interface ServerFrame {
  opcode: number;
  payload: Buffer;
}

/** A frame header + payload, masked with a zero key (the server requires the mask bit). */
export function encodeFrame(opcode: number, payload: Buffer, fin = true, masked = true): Buffer {
  const len = payload.length;
  const head: number[] = [(fin ? 0x80 : 0) | opcode];
  const m = masked ? 0x80 : 0;
  if (len < 126) head.push(m | len);
  else if (len < 65536) head.push(m | 126, len >> 8, len & 0xff);
  else {
    head.push(m | 127, 0, 0, 0, 0);
    head.push((len >>> 24) & 0xff, (len >>> 16) & 0xff, (len >>> 8) & 0xff, len & 0xff);
  }
  if (masked) head.push(0, 0, 0, 0); // zero masking key: the payload goes as is
  return Buffer.concat([Buffer.from(head), payload]);
}

/** The bytes of a client frame. */
export function clientFrameBytes(f: ClientFrame): Buffer {
  switch (f.t) {
    case 'text': {
      const p = Buffer.from(f.text, 'utf8');
      const n = Math.max(1, Math.min(f.fragments ?? 1, p.length || 1));
      if (n === 1) return encodeFrame(0x1, p);
      const parts: Buffer[] = [];
      const step = Math.ceil(p.length / n);
      for (let i = 0; i < n; i++) {
        const chunk = p.subarray(i * step, Math.min(p.length, (i + 1) * step));
        parts.push(encodeFrame(i === 0 ? 0x1 : 0x0, chunk, i === n - 1));
      }
      return Buffer.concat(parts);
    }
    case 'binary':
      return encodeFrame(0x2, Buffer.from(f.bytes));
    case 'badutf8':
      return encodeFrame(0x1, Buffer.concat([Buffer.from(f.prefix, 'utf8'), Buffer.from([0xc3, 0x28, 0xff])]));
    case 'big':
      return encodeFrame(0x1, Buffer.alloc(f.size, 0x61));
    case 'ping':
      return encodeFrame(0x9, Buffer.from(f.payload, 'utf8').subarray(0, 125));
    case 'close': {
      const reason = Buffer.from(f.reason, 'utf8').subarray(0, 100);
      const p = Buffer.alloc(2 + reason.length);
      p.writeUInt16BE(f.code & 0xffff, 0);
      reason.copy(p, 2);
      return encodeFrame(0x8, p);
    }
    case 'raw':
      return Buffer.from(f.bytes);
  }
}

/**
 * Decodes the server's frames from `buf` (unmasked, as a server sends them); returns the frames and
 * the bytes left over (an incomplete frame).
 */
export function decodeServerFrames(buf: Buffer): { frames: ServerFrame[]; rest: Buffer; error?: string } {
  const frames: ServerFrame[] = [];
  let i = 0;
  while (i + 2 <= buf.length) {
    const b0 = buf[i]!;
    const b1 = buf[i + 1]!;
    if (b1 & 0x80) return { frames, rest: Buffer.alloc(0), error: 'server frame is masked' };
    let len = b1 & 0x7f;
    let off = i + 2;
    if (len === 126) {
      if (off + 2 > buf.length) break;
      len = buf.readUInt16BE(off);
      off += 2;
    } else if (len === 127) {
      if (off + 8 > buf.length) break;
      len = Number(buf.readBigUInt64BE(off));
      off += 8;
    }
    if (off + len > buf.length) break;
    if ((b0 & 0x80) === 0) return { frames, rest: Buffer.alloc(0), error: 'server sent a fragmented frame' };
    frames.push({ opcode: b0 & 0x0f, payload: buf.subarray(off, off + len) });
    i = off + len;
  }
  return { frames, rest: buf.subarray(i) };
}

/**
 * The fake TCP socket: what the server writes is collected; what the client sends is emitted as
 * 'data' synchronously (the `ws` receiver parses it at once). No timers, no kernel.
 */
export class FakeSocket extends Duplex {
  readonly remoteAddress = '127.0.0.1';
  readonly remotePort = 40000;
  private out: Buffer[] = [];
  private handshakeDone = false;
  private pending: Buffer = Buffer.alloc(0);
  /** The server answered the upgrade with something else than 101 (a refusal), its status line. */
  refusedWith: string | undefined;
  /** The server sent a close frame (its code) or destroyed the socket. */
  closedCode: number | undefined;
  gone = false;

  constructor() {
    super({ allowHalfOpen: false });
    this.on('close', () => {
      this.gone = true;
    });
    this.on('error', () => {
      this.gone = true;
    });
  }

  override _read(): void {}
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.out.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    cb();
  }
  override _writev(chunks: Array<{ chunk: Buffer }>, cb: (err?: Error | null) => void): void {
    for (const c of chunks) this.out.push(Buffer.isBuffer(c.chunk) ? c.chunk : Buffer.from(c.chunk));
    cb();
  }
  override _final(cb: (err?: Error | null) => void): void {
    this.gone = true;
    cb();
  }
  setTimeout(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }

  /** Sends client bytes to the server (synchronously parsed by its receiver). */
  send(bytes: Buffer): void {
    if (this.gone || this.destroyed) return;
    this.emit('data', bytes);
  }

  /** The server frames written since the last call. */
  collect(): { frames: ServerFrame[]; error?: string } {
    if (this.out.length === 0) return { frames: [] };
    let buf = Buffer.concat([this.pending, ...this.out]);
    this.out = [];
    if (!this.handshakeDone) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) {
        this.pending = buf;
        return { frames: [] };
      }
      const head = buf.subarray(0, end).toString('latin1');
      const status = head.split('\r\n')[0] ?? '';
      this.handshakeDone = true;
      if (!status.startsWith('HTTP/1.1 101')) {
        this.refusedWith = status;
        this.pending = Buffer.alloc(0);
        return { frames: [] };
      }
      buf = buf.subarray(end + 4);
    }
    const r = decodeServerFrames(buf);
    this.pending = Buffer.from(r.rest);
    for (const f of r.frames)
      if (f.opcode === 0x8) this.closedCode = f.payload.length >= 2 ? f.payload.readUInt16BE(0) : 1005;
    return r.error !== undefined ? { frames: r.frames, error: r.error } : { frames: r.frames };
  }
}

/** A fake upgrade request for `path` (a well-formed WebSocket handshake unless `bad` says otherwise). */
export function upgradeRequest(path: string, socket: FakeSocket, bad?: 'method' | 'key' | 'version'): IncomingMessage {
  const headers: Record<string, string> = {
    host: '127.0.0.1',
    connection: 'Upgrade',
    upgrade: 'websocket',
    'sec-websocket-version': bad === 'version' ? '12' : '13',
    'sec-websocket-key': bad === 'key' ? 'not-a-key' : randomBytes(16).toString('base64'),
  };
  return {
    method: bad === 'method' ? 'POST' : 'GET',
    url: path,
    headers,
    socket,
    httpVersion: '1.1',
  } as unknown as IncomingMessage;
}
