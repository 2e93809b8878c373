import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { watchStopSignals } from '../../../src/cli/stop-signals.ts';

const fakeProcess = () => new EventEmitter() as EventEmitter & NodeJS.Process;

describe('stop signals', () => {
  it('the first signal asks for the stop; later ones are reported, and the handlers stay installed', async () => {
    const p = fakeProcess();
    const s = watchStopSignals(p);
    const repeats: string[] = [];
    s.onRepeat((sig) => repeats.push(sig));
    expect(s.received).toBeUndefined();
    p.emit('SIGINT');
    expect(await s.first).toBe('SIGINT');
    expect(s.received).toBe('SIGINT');
    // Ctrl-C under `npm start`: the terminal's SIGINT and npm's forwarded one. Without a handler the
    // second would kill the process in the middle of its shutdown.
    expect(p.listenerCount('SIGINT')).toBe(1);
    expect(p.listenerCount('SIGTERM')).toBe(1);
    p.emit('SIGINT');
    p.emit('SIGTERM');
    expect(repeats).toEqual(['SIGINT', 'SIGTERM']);
    expect(s.received).toBe('SIGINT');
    s.dispose();
    s.dispose();
    expect(p.listenerCount('SIGINT')).toBe(0);
    expect(p.listenerCount('SIGTERM')).toBe(0);
  });

  it('SIGHUP (a closed terminal, an SSH session gone) asks for the orderly stop like SIGTERM', async () => {
    const p = fakeProcess();
    const s = watchStopSignals(p);
    // without a handler, Node's default action ends the process at once: orders left resting (trial 6 F6)
    expect(p.listenerCount('SIGHUP')).toBe(1);
    p.emit('SIGHUP');
    expect(await s.first).toBe('SIGHUP');
    s.dispose();
    expect(p.listenerCount('SIGHUP')).toBe(0);
  });

  it('a signal received before anyone waits is kept', async () => {
    const p = fakeProcess();
    const s = watchStopSignals(p);
    p.emit('SIGTERM');
    await new Promise((r) => setTimeout(r, 5));
    expect(await s.first).toBe('SIGTERM');
  });
});
