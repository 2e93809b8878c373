/**
 * The fleet's shared request budgets for a daemon (`mmkit run` with fleet.redisUrl): a fail-fast
 * connection (./redis.ts) and a `RedisWindowGate` (./window-gate.ts) over the same rules the local
 * budgets would use (`budgetRules`), less the emergency reserves (./reserve-gate.ts), for `Budgets`
 * to use in place of its local WindowGate, and, when a signer is given and the per-signer buckets
 * are on, a `RedisSignerGate` (./signer-gate.ts) for the venue's per-signer buckets, which every
 * member signing with that key shares. The per-endpoint Bottleneck queues stay local.
 */
import type { Redis } from 'ioredis';
import type { Clock, TimerHandle } from '../core/clock.ts';
import { type BudgetConfig, type BudgetGate, budgetRules } from '../api/http/budgets.ts';
import { startTierOf } from '../api/http/signer-budget.ts';
import { connectFleetRedis, memberName, redactRedisUrl } from './redis.ts';
import { ReserveGate, splitReserve } from './reserve-gate.ts';
import { RedisSignerGate } from './signer-gate.ts';
import { RedisWindowGate } from './window-gate.ts';

/** What the shared budgets log (a pino logger fits). */
export interface FleetLog {
  info(fields: Record<string, unknown>, msg: string): void;
  warn(fields: Record<string, unknown>, msg: string): void;
}

export interface SharedBudgets {
  /** What `Budgets` uses: the shared windows, with the emergency reserve behind them when on. */
  readonly gate: BudgetGate;
  readonly shared: RedisWindowGate;
  /** The shared per-signer buckets, for `Budgets` (`opts.signer`); absent without a signer or when off. */
  readonly signer?: RedisSignerGate;
  readonly redis: Redis;
  readonly member: string;
  /** Stop the gate (its waiters rejected), let its last scripts finish (1 s at most), disconnect. */
  close(): Promise<void>;
}

/**
 * Connect and join the fleet's budgets of `account`.
 * @throws ConfigError on a bad URL or member name, or when the fleet runs other budget rules;
 *   Error (URL redacted) when Redis cannot be reached
 */
export async function openSharedBudgets(o: {
  url: string;
  member: string;
  /** The account (wallet or funder address) whose budgets are shared. */
  account: string;
  /** The signer's address (the key that signs orders): its per-signer buckets are shared too. */
  signer?: string;
  budgets: BudgetConfig;
  /** fleet.maxMembers (default 8). */
  maxMembers?: number;
  /** fleet.reserve: emergency slots per member (./reserve-gate.ts; default 4, 0: none). */
  reserve?: number;
  clock: Clock;
  log?: FleetLog;
}): Promise<SharedBudgets> {
  const maxMembers = o.maxMembers ?? 8;
  const split = splitReserve(budgetRules(o.budgets), { maxMembers, reserve: o.reserve ?? 4 });
  const member = memberName(o.member);
  let lastWarn = -Infinity;
  const redis = await connectFleetRedis(o.url, {
    onError: (err) => {
      // at most one line every 10 s while Redis is away (the URL never appears)
      const now = o.clock.now();
      if (now - lastWarn < 10_000) return;
      lastWarn = now;
      o.log?.warn({ err: err.message }, 'fleet: Redis connection error (shared budgets refuse requests meanwhile)');
    },
  });
  let shared: RedisWindowGate;
  try {
    shared = await RedisWindowGate.open(redis, split.shared, o.clock, {
      account: o.account,
      member,
      maxMembers,
      ...(o.budgets.marginMs !== undefined ? { marginMs: o.budgets.marginMs } : {}),
    });
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  const gate =
    split.reserve.length === 0
      ? shared
      : new ReserveGate(shared, split.reserve, o.clock, {
          maxMembers,
          ...(o.budgets.marginMs !== undefined ? { marginMs: o.budgets.marginMs } : {}),
        });
  const tier = o.signer !== undefined && o.budgets.enabled !== false ? startTierOf(o.budgets.signerTier) : undefined;
  const signer =
    tier !== undefined && o.signer !== undefined
      ? new RedisSignerGate(redis, o.clock, {
          signer: o.signer,
          member,
          tier,
          ...(o.budgets.scale !== undefined ? { scale: o.budgets.scale } : {}),
          ...((o.reserve ?? 4) > 0 ? { reserve: { maxMembers } } : {}),
        })
      : undefined;
  o.log?.info(
    { member, redis: redactRedisUrl(o.url), maxMembers, reserve: o.reserve ?? 4 },
    'fleet: request budgets shared through Redis',
  );
  return {
    gate,
    shared,
    redis,
    member,
    ...(signer !== undefined ? { signer } : {}),
    async close() {
      gate.close(new DOMException('budgets stopped', 'AbortError'));
      signer?.close(new DOMException('budgets stopped', 'AbortError'));
      let timer: TimerHandle | undefined;
      await Promise.race([
        shared
          .leave()
          .catch(() => undefined)
          .then(() => Promise.all([shared.idle(), signer?.idle()])),
        new Promise<void>((res) => {
          timer = o.clock.setTimeout(res, 1_000);
        }),
      ]).finally(() => timer !== undefined && o.clock.clearTimeout(timer));
      redis.disconnect();
    },
  };
}
