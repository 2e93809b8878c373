/** The two paths the frame scanner tests compare: the reference (JSON.parse + decode) and the scanner. */
import { expect } from 'vitest';
import type { MarketDataEvent } from '../../../../src/core/events.ts';
import { MarketDecoder } from '../../../../src/api/streams/market-decode.ts';
import type { FrameScanner } from '../../../../src/api/streams/frame-scan.ts';

/** The reference path: JSON.parse, then decode each message; undefined when any message is not decoded OK. */
export function reference(raw: string, recvTime: number): { events: MarketDataEvent[]; messages: number } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const d = new MarketDecoder();
  const events: MarketDataEvent[] = [];
  const msgs = Array.isArray(parsed) ? parsed : [parsed];
  if (msgs.length === 0) return undefined;
  for (const m of msgs) if (d.decode(m, recvTime, (e) => events.push(e)).kind !== 'ok') return undefined;
  expect(d.stats.events).toBe(events.length);
  return { events, messages: d.stats.messages };
}

/** The scanner's answer; undefined when it declined (then it must have emitted and counted nothing). */
export function scannedBy(
  scanner: FrameScanner,
  raw: string,
  recvTime: number,
): { events: MarketDataEvent[]; messages: number; eventsCounted: number } | undefined {
  const d = new MarketDecoder();
  const events: MarketDataEvent[] = [];
  const ok = scanner.scan(raw, recvTime, d.stats, (e) => events.push(e));
  if (!ok) {
    expect(events).toEqual([]);
    expect(d.stats).toEqual({ messages: 0, events: 0, bad: 0, unknownTypes: 0, serverErrors: 0 });
    return undefined;
  }
  return { events, messages: d.stats.messages, eventsCounted: d.stats.events };
}
