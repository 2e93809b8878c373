/**
 * The Redis keys of a fleet's coordination state (leases, membership, kill switch). Every key of
 * one account carries the same hash tag `{<wallet address>}`, so the scripts that touch several of
 * them also run on a Redis Cluster (one slot per account). The shared budgets (src/fleet's window
 * gate) live under the same tag.
 */
import { ValidationError } from '../core/errors.ts';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const MARKET = /^[A-Za-z0-9._-]{1,128}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The keys of one account's fleet. */
export interface FleetKeys {
  /** `mmkit:{<address>}:` */
  readonly prefix: string;
  /** The heartbeat lease (one member sends the venue's heartbeats). */
  readonly heartbeatLease: string;
  /** The heartbeat chain's last link (HASH id, fence: ./heartbeat-chain.ts). */
  readonly heartbeatState: string;
  /** The fence counter of a lease key. */
  fence(leaseKey: string): string;
  /** A market's lease (one member quotes it). */
  marketLease(market: string): string;
  /** ZSET member -> last seen (Redis TIME ms). */
  readonly members: string;
  /** The fleet kill switch: a persistent key (the trip record) ... */
  readonly kill: string;
  /** ... and the channel its trips are published on. */
  readonly killChannel: string;
  /** HASH member -> "<notional µ>:<open orders>:<refreshed at, Redis TIME ms>": the risk grants. */
  readonly riskGrants: string;
  /**
   * HASH member -> "<since, Redis TIME ms>:<notional 0|1>:<orders 0|1>": members short of room (their
   * ask for room was cut below their fair share); members above their fair share give back to it.
   */
  readonly riskShort: string;
  /** HASH of the account limits the fleet runs with (./fleet-limits.ts). */
  readonly riskLimits: string;
  /** HASH member -> its last PnL, µ-collateral (persistent: a dead member's positions still exist). */
  readonly pnl: string;
  /**
   * HASH ledger -> "<UTC date>:<PnL of that day, µ>": each member's day PnL (risk.maxDailyLoss, summed
   * over the members of the same date: ./fleet-loss.ts).
   */
  readonly dayPnl: string;
  /** HASH member -> its published ledger (./fleet-ledger.ts; persistent: a dead member's positions stay). */
  readonly ledgers: string;
  /** STRING: the fleet's generation, a random id set by the first reader; a Redis restarted empty has another (./ledger-memory.ts). */
  readonly generation: string;
  /** HASH market -> the reward paid for a UTC date booked fleet-wide, micro (./reward-claims.ts). */
  rewardsPaid(date: string): string;
  /** STRING with a TTL: while it exists the reward claims grant nothing (re-asserts after a loss: ./reward-claims.ts). */
  readonly rewardsHold: string;
  /** ZSET order id -> when first recorded (ms): the orders of members that filled (./member-orders.ts). */
  readonly memberOrders: string;
  /** STRING: the ledger id that booked the account's history before the fleet (./member-orders.ts). */
  readonly history: string;
  /**
   * STRING: the ledger id that books a fill of an order no member placed, on a market outside the
   * fleet's (`trade|order`; ./member-orders.ts `claimExternalFill`).
   */
  externalFill(tradeId: string, orderId: string): string;
}

/**
 * The keys of the fleet trading as `account` (a wallet address, any case).
 * @throws ValidationError on an address that is not 0x + 40 hex digits
 */
export function fleetKeys(account: string): FleetKeys {
  if (!ADDRESS.test(account)) throw new ValidationError(`fleet account must be 0x + 40 hex digits, got "${account}"`);
  const prefix = `mmkit:{${account.toLowerCase()}}:`;
  return {
    prefix,
    heartbeatLease: `${prefix}lease:hb`,
    heartbeatState: `${prefix}hb:state`,
    fence: (leaseKey) => `${leaseKey}:fence`,
    marketLease(market) {
      if (!MARKET.test(market)) throw new ValidationError(`not a market id: "${market}"`);
      return `${prefix}lease:mkt:${market}`;
    },
    members: `${prefix}members`,
    kill: `${prefix}kill`,
    killChannel: `${prefix}kill:ch`,
    riskGrants: `${prefix}risk:grants`,
    riskShort: `${prefix}risk:short`,
    riskLimits: `${prefix}risk:limits`,
    pnl: `${prefix}risk:pnl`,
    dayPnl: `${prefix}risk:daypnl`,
    ledgers: `${prefix}ledgers`,
    generation: `${prefix}generation`,
    rewardsPaid(date) {
      if (!DATE.test(date)) throw new ValidationError(`not a UTC date (YYYY-MM-DD): "${date}"`);
      return `${prefix}rewards:paid:${date}`;
    },
    rewardsHold: `${prefix}rewards:hold`,
    memberOrders: `${prefix}orders`,
    history: `${prefix}history`,
    externalFill: (tradeId, orderId) => `${prefix}xfill:${tradeId}|${orderId}`,
  };
}
