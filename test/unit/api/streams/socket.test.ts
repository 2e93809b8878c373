import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  DEFAULT_BACKOFF,
  isPong,
  parseFrame,
  reconnectingSocket,
  type SocketOptions,
  type SocketSignal,
} from '../../../../src/api/streams/socket.ts';
import { VirtualClock } from '../../../../src/core/clock.ts';
import { FakeServer } from './fake-socket.ts';

function setup(o: Partial<SocketOptions> = {}) {
  const clock = new VirtualClock(1_000_000);
  const server = new FakeServer();
  let subFrames = ['{"sub":1}'];
  const sock = reconnectingSocket({
    url: 'ws://x/ws/market',
    stream: 'market',
    openFrames: () => subFrames,
    pingIntervalMs: 10_000,
    silenceMs: 30_000,
    clock,
    random: () => 0,
    createSocket: server.factory,
    ...o,
  });
  const signals: SocketSignal[] = [];
  let completed = false;
  const sub = sock.signals$.subscribe({ next: (s) => signals.push(s), complete: () => (completed = true) });
  return {
    clock,
    server,
    sock,
    signals,
    sub,
    kinds: () => signals.map((s) => s.kind),
    setFrames: (f: string[]) => (subFrames = f),
    get completed() {
      return completed;
    },
  };
}

describe('backoffDelay', () => {
  it('grows by the factor from the initial delay, capped, with jitter taking off up to its fraction', () => {
    const p = DEFAULT_BACKOFF;
    expect([0, 1, 2, 3, 4, 5, 6, 7, 10].map((a) => backoffDelay(a, p, 0))).toEqual([
      500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000,
    ]);
    expect(backoffDelay(0, p, 0.999999)).toBe(250);
    expect(backoffDelay(20, p, 0.5)).toBe(22500);
    expect(backoffDelay(3, { ...p, jitter: 0 }, 0.7)).toBe(4000);
  });
  it('stays within [base * (1 - jitter), base] and never above the cap', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60 }),
        fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (attempt, r, jitter) => {
          const p = { initialMs: 500, maxMs: 30_000, factor: 2, jitter };
          const base = Math.min(30_000, 500 * 2 ** attempt);
          const d = backoffDelay(attempt, p, r);
          return d <= base && d >= Math.floor(base * (1 - jitter)) && d <= 30_000;
        },
      ),
    );
  });
});

describe('frames', () => {
  it('one object, an array, blank text, garbage', () => {
    expect(parseFrame('{"a":1}')).toEqual({ ok: true, messages: [{ a: 1 }] });
    expect(parseFrame('[{"a":1},{"b":2}]')).toEqual({ ok: true, messages: [{ a: 1 }, { b: 2 }] });
    expect(parseFrame('  ')).toEqual({ ok: true, messages: [] });
    expect(parseFrame('{"a":')).toEqual({ ok: false, reason: 'malformed JSON' });
    expect(parseFrame('PONGx').ok).toBe(false);
    expect(isPong('PONG')).toBe(true);
    expect(isPong('pong')).toBe(true);
    expect(isPong('PONG!')).toBe(false);
  });
});

describe('reconnecting socket', () => {
  it('sends the subscription, then PING; its PONG makes it ready; pings every interval', () => {
    const t = setup();
    const s = t.server.last.open();
    expect(s.sent).toEqual(['{"sub":1}', 'PING']);
    expect(t.kinds()).toEqual(['open']);
    s.recv('PONG');
    expect(t.signals[1]).toMatchObject({ kind: 'ready', confirmed: true, reconnect: false });
    t.clock.advance(10_000);
    t.clock.advance(10_000);
    expect(s.pings()).toBe(3);
    expect(t.sock.stats.pongs).toBe(1);
    expect(t.sock.connected).toBe(true);
  });

  it('is ready without confirmation when no PONG comes in time', () => {
    const t = setup({ readyTimeoutMs: 2000 });
    t.server.last.open();
    t.clock.advance(2000);
    expect(t.signals[1]).toMatchObject({ kind: 'ready', confirmed: false });
  });

  it('delivers each element of an array frame; counts a garbage frame and goes on', () => {
    const t = setup();
    const s = t.server.last.open();
    s.recv([{ a: 1 }, { a: 2 }])
      .recv('not json')
      .recv('')
      .binary()
      .recv({ a: 3 });
    const msgs = t.signals.filter((x) => x.kind === 'message').map((x) => (x as any).msg);
    expect(msgs).toEqual([{ a: 1 }, { a: 2 }, { a: 3 }]);
    expect(t.signals.filter((x) => x.kind === 'bad_frame').map((x) => (x as any).reason)).toEqual([
      'malformed JSON',
      'binary frame',
    ]);
    expect(t.sock.stats).toMatchObject({ messages: 3, badFrames: 2 });
    expect(t.sock.connected).toBe(true);
  });

  it('judges liveness by data: PONGs do not keep a silent connection', () => {
    const t = setup({ silenceMs: 30_000, pingIntervalMs: 5_000 });
    const s = t.server.last.open();
    s.recv('PONG');
    // no data yet: no deadline (a subscription that never received anything is not judged)
    t.clock.advance(60_000);
    expect(t.kinds()).not.toContain('down');
    s.recv({ event_type: 'book' });
    for (let i = 0; i < 5; i++) {
      t.clock.advance(5_000);
      s.recv('PONG');
    }
    expect(t.kinds()).not.toContain('down');
    t.clock.advance(5_000); // 30 s since the data
    const down = t.signals.find((x) => x.kind === 'down');
    expect(down).toMatchObject({ reason: 'silence: no data for 30000 ms', wasOpen: true });
    expect(s.terminated).toBe(true);
    expect(t.sock.stats.silenceReconnects).toBe(1);
    // the next connection is judged from its opening: the stream has had data before
    t.clock.advance((down as any).retryInMs);
    const s2 = t.server.last.open();
    expect(s2).not.toBe(s);
    s2.recv('PONG');
    t.clock.advance(29_999);
    expect(t.signals.filter((x) => x.kind === 'down').length).toBe(1);
    t.clock.advance(1);
    expect(t.signals.filter((x) => x.kind === 'down').length).toBe(2);
  });

  it('data keeps the connection: the deadline moves with each frame', () => {
    const t = setup({ silenceMs: 1000 });
    const s = t.server.last.open();
    for (let i = 0; i < 50; i++) {
      s.recv({ n: i });
      t.clock.advance(900);
    }
    expect(t.kinds()).not.toContain('down');
  });

  it('backs off exponentially while connections fail, and resets after a healthy one', () => {
    const t = setup({ healthyAfterMs: 3000 });
    const delays: number[] = [];
    for (let i = 0; i < 8; i++) {
      t.server.last.open().drop();
      const d = t.signals[t.signals.length - 1] as Extract<SocketSignal, { kind: 'down' }>;
      delays.push(d.retryInMs);
      t.clock.advance(d.retryInMs);
    }
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    // a connection that stays up 3 s is healthy: the next retry starts over
    const s = t.server.last.open();
    t.clock.advance(3000);
    s.drop();
    expect(t.signals[t.signals.length - 1]).toMatchObject({ kind: 'down', retryInMs: 500, reason: 'closed 1006' });
    expect(t.server.sockets.length).toBe(9);
    t.clock.advance(499);
    expect(t.server.sockets.length).toBe(9);
    t.clock.advance(1);
    expect(t.server.sockets.length).toBe(10);
  });

  it('gives up on a connect that hangs, and retries', () => {
    const t = setup({ connectTimeoutMs: 5000 });
    t.clock.advance(5000);
    expect(t.signals[0]).toMatchObject({ kind: 'down', reason: 'connect timeout 5000 ms', wasOpen: false });
    expect(t.server.last.terminated).toBe(true);
    t.clock.advance(500);
    expect(t.server.sockets.length).toBe(2);
  });

  it('resubscribes on reconnect with the frames as they stand then; late events of the old socket are ignored', () => {
    const t = setup();
    const s1 = t.server.last.open();
    s1.drop();
    t.setFrames(['{"sub":2}']);
    t.clock.advance(500);
    const s2 = t.server.last.open();
    expect(s2.sent[0]).toBe('{"sub":2}');
    expect(t.signals.filter((x) => x.kind === 'open').map((x) => (x as any).reconnect)).toEqual([false, true]);
    s1.recv({ late: true });
    s1.drop();
    expect(t.signals.filter((x) => x.kind === 'message')).toEqual([]);
    expect(t.sock.connected).toBe(true);
  });

  it('reconnect() replaces a live connection', () => {
    const t = setup();
    const s = t.server.last.open();
    t.sock.reconnect('asked');
    expect(s.terminated).toBe(true);
    expect(t.signals[t.signals.length - 1]).toMatchObject({ kind: 'down', reason: 'asked' });
  });

  it('close() stops for good, idempotently: socket closed, timers cleared, signals complete', () => {
    const t = setup();
    const s = t.server.last.open();
    s.recv({ a: 1 });
    t.sock.close();
    t.sock.close();
    expect(s.closed).toBe(true);
    expect(t.completed).toBe(true);
    expect(t.clock.pending()).toBe(0);
    expect(t.sock.send('x')).toBe(false);
    t.clock.advance(100_000);
    expect(t.server.sockets.length).toBe(1);
    // a late subscriber gets completion at once, and no connection
    let done = false;
    t.sock.signals$.subscribe({ complete: () => (done = true) });
    expect(done).toBe(true);
    expect(t.server.sockets.length).toBe(1);
  });

  it('the last unsubscribe stops (no reconnect), a new subscriber connects afresh', () => {
    const t = setup();
    const s = t.server.last.open();
    t.sub.unsubscribe();
    expect(s.closed).toBe(true);
    expect(t.clock.pending()).toBe(0);
    const again: SocketSignal[] = [];
    t.sock.signals$.subscribe((x) => again.push(x));
    t.server.last.open();
    expect(t.server.sockets.length).toBe(2);
    expect(again[0]).toMatchObject({ kind: 'open', reconnect: false });
  });

  it('never logs what it sends (the user channel frame carries secrets)', () => {
    const logs: string[] = [];
    const logger = {
      warn: (o: object, m: string) => logs.push(JSON.stringify(o) + m),
      info: (o: object, m: string) => logs.push(JSON.stringify(o) + m),
      debug: (o: object, m: string) => logs.push(JSON.stringify(o) + m),
    };
    const t = setup({ logger });
    t.setFrames(['{"auth":{"secret":"TOPSECRET"}}']);
    t.server.last.open().recv('garbage').drop();
    t.clock.advance(500);
    t.server.last.open();
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.join('\n')).not.toContain('TOPSECRET');
  });
});
