/**
 * The simulated venue (src/venues/sim/sim-venue.ts) through the shared Venue contract suite
 * (test/contract/venue.contract.ts), as the live adapter runs it against the paper exchange.
 *
 * The venue lives in virtual time: its answers come from VirtualClock timers (entry, cancel and
 * response latencies). The suite awaits them in real time, so the harness drives the clock with a
 * small pump (5 virtual ms every real millisecond) for as long as the suite runs; nothing in the
 * suite had to change. The recorded feed is a header and both tokens' books (0.30 / 0.70, room in
 * between), ingested before the suite subscribes: its subscription gets them as snapshots, as a
 * live subscription would. The counterparty's `take` injects what the recorded market would show
 * of a crossing order: the trade printed on both tokens (a SELL of YES at p is the NO print
 * BUY at 1 − p; the venue counts the match once), at the clock's present.
 */
import { VirtualClock } from '../../src/core/clock.ts';
import { createSimVenue } from '../../src/venues/sim/sim-venue.ts';
import { runVenueContract } from '../contract/venue.contract.ts';
import { FeedBuilder, feed, marketInfo, simOptions, T0 } from '../unit/venues/sim/sim-fixtures.ts';

runVenueContract('simulated venue on a recorded feed (virtual time)', async () => {
  const clock = new VirtualClock(T0);
  const market = marketInfo();
  const venue = createSimVenue({
    ...simOptions(clock, { markets: [market] }),
    latency: {
      entry: { kind: 'constant', ms: 5 },
      cancel: { kind: 'constant', ms: 5 },
      response: { kind: 'constant', ms: 5 },
    },
  });
  const fb = new FeedBuilder(market);
  fb.header();
  fb.book([[3000, 100]], [[7000, 100]]);
  feed(venue, clock, fb.items);
  let played = fb.items.length;
  const pump = setInterval(() => clock.advance(5), 1);
  return {
    venue,
    market,
    counterparty: {
      async take(o) {
        fb.t = clock.now();
        fb.trade(
          o.tokenId === market.tokens[0].tokenId ? o.side : o.side === 'BUY' ? 'SELL' : 'BUY',
          o.tokenId === market.tokens[0].tokenId ? o.price : 10_000 - o.price,
          o.size / 1_000_000,
        );
        feed(venue, clock, fb.items.slice(played));
        played = fb.items.length;
      },
    },
    async close() {
      clearInterval(pump);
      await venue.close();
    },
  };
});
