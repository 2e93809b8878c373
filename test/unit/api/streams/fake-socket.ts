/**
 * A fake socket factory for the stream clients: records what the client sends and lets a test
 * open, feed and drop connections synchronously (with a VirtualClock for the timers).
 */
import type { WsFactory, WsHandlers, WsLike } from '../../../../src/api/streams/socket.ts';

export class FakeSocket implements WsLike {
  readonly sent: string[] = [];
  terminated = false;
  closed = false;
  constructor(
    readonly url: string,
    private readonly h: WsHandlers,
  ) {}
  send(text: string): void {
    this.sent.push(text);
  }
  terminate(): void {
    this.terminated = true;
  }
  close(): void {
    this.closed = true;
  }
  /** The server accepts the connection. */
  open(): this {
    this.h.onOpen();
    return this;
  }
  /** A text frame from the server (objects and arrays are serialised). */
  recv(v: unknown): this {
    this.h.onText(typeof v === 'string' ? v : JSON.stringify(v));
    return this;
  }
  binary(): this {
    this.h.onBinary();
    return this;
  }
  /** The connection closes (network loss: 1006). */
  drop(code = 1006, reason = ''): this {
    this.h.onClose(code, reason);
    return this;
  }
  /** JSON frames sent (PING excluded). */
  json(): any[] {
    return this.sent.filter((t) => t !== 'PING').map((t) => JSON.parse(t));
  }
  pings(): number {
    return this.sent.filter((t) => t === 'PING').length;
  }
}

export class FakeServer {
  readonly sockets: FakeSocket[] = [];
  readonly factory: WsFactory = (url, h) => {
    const s = new FakeSocket(url, h);
    this.sockets.push(s);
    return s;
  };
  get last(): FakeSocket {
    const s = this.sockets[this.sockets.length - 1];
    if (s === undefined) throw new Error('no socket yet');
    return s;
  }
}
