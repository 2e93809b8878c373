/**
 * The clock check: how far the venue's clock (GET /time, unix seconds) is from ours. L1 and L2
 * signatures carry our timestamp (refused beyond the venue's limit), GTD expirations and V2 order
 * timestamps are judged by the venue's clock, and the request budgets count windows on ours.
 */
import { fail, pass, warn, type Check } from './check.ts';

const ID = 'clock';
const TITLE = 'clock skew (GET /time)';

/**
 * The venue's offset from our clock, ms (positive: the venue is ahead), and its uncertainty: the
 * answer is whole seconds (±500 ms) taken somewhere within the request's round trip.
 * @param serverSec GET /time's answer
 * @param sentAt our clock when the request left, ms; @param receivedAt when the answer came, ms
 */
export function clockOffset(
  serverSec: number,
  sentAt: number,
  receivedAt: number,
): { offsetMs: number; uncertaintyMs: number } {
  const mid = (sentAt + receivedAt) / 2;
  return {
    offsetMs: Math.round(serverSec * 1000 + 500 - mid),
    uncertaintyMs: Math.round(500 + (receivedAt - sentAt) / 2),
  };
}

/** Fail when the offset is surely beyond `maxMs`; warn past half of it; pass otherwise. */
export function clockCheck(o: { offsetMs: number; uncertaintyMs: number }, maxMs: number): Check {
  const abs = Math.abs(o.offsetMs);
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const detail =
    abs <= o.uncertaintyMs
      ? `within ${s(o.uncertaintyMs)} of ours (limit ${s(maxMs)})`
      : `the venue's clock is ${s(abs)} ${o.offsetMs > 0 ? 'ahead of' : 'behind'} ours (±${s(o.uncertaintyMs)}; limit ${s(maxMs)})`;
  const fix =
    "synchronise this machine's clock (NTP: `timedatectl set-ntp true`, or chrony); doctor.maxClockSkewMs sets the limit";
  if (abs - o.uncertaintyMs > maxMs) return fail(ID, TITLE, detail, fix);
  // (a reading at or past the limit within its uncertainty: not surely beyond it, so a warning, said so:
  // trial 15 F9, "2.0 s ahead (limit 2.0 s)" read as a contradiction)
  const maybe =
    abs + o.uncertaintyMs > maxMs
      ? `: maybe beyond the limit, not surely (the venue's time has whole seconds); fails once surely beyond`
      : '';
  if (abs > maxMs / 2 && abs > o.uncertaintyMs) return warn(ID, TITLE, detail + maybe, fix);
  return pass(ID, TITLE, detail);
}
