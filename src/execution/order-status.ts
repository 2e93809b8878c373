/**
 * An order's status as the tracker keeps it, their order (a status only moves forward: pending or
 * unknown, then live, partially filled, then one of the terminal three), and the venue's order
 * statuses read as one.
 */
import type { OrderStatus as VenueOrderStatus } from '../core/events.ts';

export type TrackedStatus = 'pending' | 'live' | 'partially_filled' | 'filled' | 'cancelled' | 'rejected' | 'unknown';

/** The order of the statuses: 3 for the terminal ones. */
export const RANK: Readonly<Record<TrackedStatus, number>> = {
  pending: 0,
  unknown: 0,
  live: 1,
  partially_filled: 2,
  filled: 3,
  cancelled: 3,
  rejected: 3,
};

/** True for filled, cancelled and rejected. */
export function isTerminal(s: TrackedStatus): boolean {
  return RANK[s] === 3;
}
/** True for the states that may rest at the venue (or may, while unresolved). */
export function isOpen(s: TrackedStatus): boolean {
  return RANK[s] < 3;
}

/** A venue order status plus matched size, as a tracker state. */
export function fromVenueStatus(status: VenueOrderStatus, sizeMatched: number, originalSize: number): TrackedStatus {
  switch (status) {
    case 'LIVE':
    case 'DELAYED':
      return sizeMatched > 0 ? (sizeMatched >= originalSize ? 'filled' : 'partially_filled') : 'live';
    case 'MATCHED':
      return 'filled';
    case 'CANCELED':
    case 'UNMATCHED':
      return 'cancelled';
  }
}
