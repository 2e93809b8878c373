/**
 * Streams of the paper exchange on the HTTP server's port: market and user channels at /ws/market
 * and /ws/user, the real-time data stream at /rtds. (Stub: replaced by the streams implementation.)
 */
import type { Server } from 'node:http';
import type { PaperExchange } from '../exchange.ts';
import type { FaultController } from '../faults.ts';

export interface StreamsOptions {
  /** Largest accepted client frame, bytes. */
  maxPayload: number;
}

export interface Streams {
  close(): Promise<void>;
  /** Connected sockets per stream. */
  stats(): { market: number; user: number; rtds: number };
}

export function attachStreams(_server: Server, _ex: PaperExchange, _faults: FaultController, _opts: StreamsOptions): Streams {
  return { close: async () => {}, stats: () => ({ market: 0, user: 0, rtds: 0 }) };
}
