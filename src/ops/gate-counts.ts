/**
 * The risk gate's counts by code, as the daemon shows them: a module of its own, without prom-client,
 * so that the exit summary and the CLI (src/cli/run-summary.ts) read them without loading the metrics
 * registry (`mmkit --help` must stay cheap).
 */
import type { TraderCounters } from '../kernel/types.ts';

/**
 * The gate's counts by code as the daemon shows them (metrics, status, exit summary): the quotes and
 * immediate orders it refused, and the quotes it cut, from the kernel's counters. Read once a second
 * or at a scrape: a copy each time.
 */
export function gateCountsOf(c: Pick<TraderCounters, 'quotesRefused' | 'quotesTrimmed' | 'ordersRefusedByCode'>): {
  refused: Map<string, number>;
  trimmed: Map<string, number>;
} {
  const refused = new Map(Object.entries(c.quotesRefused));
  for (const [code, n] of Object.entries(c.ordersRefusedByCode)) refused.set(code, (refused.get(code) ?? 0) + n);
  return { refused, trimmed: new Map(Object.entries(c.quotesTrimmed)) };
}
