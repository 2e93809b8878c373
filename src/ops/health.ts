/**
 * The daemon's health, as `/healthz` answers it: healthy (200) only while it can quote safely.
 * Unhealthy (503) with every reason that holds:
 *
 *  - `starting` / `reconciling`: the start-up reconciliation with the venue has not finished (the
 *    engine does not quote before it has);
 *  - `stopping` / `stopped`: an orderly shutdown is under way;
 *  - `kill_switch`: the kill switch tripped (the daemon is flattening and will exit);
 *  - `market_stream_down` / `user_stream_down`: the stream's socket is gone (a `disconnected`
 *    event and no `resynced` since);
 *  - `feed_stale`: no market data for longer than `feedStaleMs` (a frozen socket that still
 *    answers PONG; not once every followed market resolved: nothing more comes), or a traded book is
 *    stale (no snapshot yet, desynced, crossed);
 *  - `heartbeat_failing`: the last heartbeat to the venue's dead-man switch failed (placing is
 *    paused until one succeeds);
 *  - `strategy_failing`: the strategy erred on several evaluations in a row (every quote is pulled
 *    until one succeeds: src/engine/loop.ts STRATEGY_FAILING_AFTER);
 *  - `fleet_unreachable`: a fleet member cannot reach the fleet's Redis (it pulled its quotes and
 *    places nothing until Redis is back: src/fleet/fail-closed.ts).
 *
 * Pure: the caller gathers the inputs and passes the time.
 */

/** Where the daemon is in its life. */
export type Lifecycle = 'starting' | 'reconciling' | 'running' | 'stopping' | 'stopped';

/** A stream as health sees it. */
export interface StreamHealthInput {
  /** True after a `resynced` (or before any status event), false after a `disconnected`. */
  readonly connected: boolean;
  /** Unix ms of the last data event (0: none yet). */
  readonly lastDataAt: number;
  /** Why it went down (the `disconnected` reason). */
  readonly reason?: string;
}

/** A traded book as health sees it. */
export interface BookHealthInput {
  readonly market: string;
  readonly tokenId: string;
  readonly outcome: string;
  readonly stale: boolean;
  /** True when the market resolved or is inactive: its books no longer matter. */
  readonly retired?: boolean;
}

/** Everything health is judged from. */
export interface HealthInput {
  readonly lifecycle: Lifecycle;
  /** Unix ms the daemon entered `running` (0: not yet). Grace for the first data starts there. */
  readonly runningSince: number;
  readonly market: StreamHealthInput;
  /** Absent when the daemon has no user stream. */
  readonly user?: StreamHealthInput;
  readonly books: readonly BookHealthInput[];
  readonly heartbeat: { readonly consecutiveFailures: number; readonly error?: string };
  readonly killSwitch: { readonly tripped: boolean; readonly trigger?: string; readonly message?: string };
  /** Market data silence after which the feed counts as stale, ms (0 disables the check). */
  readonly feedStaleMs: number;
  /** A fleet member that cannot reach the fleet's Redis (placing paused for 'fleet'); absent: not a member, or reachable. */
  readonly fleetUnreachable?: boolean;
  /** The strategy's failing state (EngineStats.strategyFailing); absent: not failing. */
  readonly strategyFailing?: { readonly consecutive: number; readonly lastError: string };
}

/** Stable codes of the reasons. */
export type HealthCode =
  | 'starting'
  | 'reconciling'
  | 'stopping'
  | 'stopped'
  | 'kill_switch'
  | 'market_stream_down'
  | 'user_stream_down'
  | 'feed_stale'
  | 'heartbeat_failing'
  | 'strategy_failing'
  | 'fleet_unreachable';

export interface HealthReason {
  readonly code: HealthCode;
  readonly message: string;
}

/** The answer of /healthz (and the `health` of /api/status). */
export interface HealthReport {
  readonly status: 'ok' | 'unhealthy';
  readonly healthy: boolean;
  readonly reasons: readonly HealthReason[];
  readonly checks: {
    readonly lifecycle: Lifecycle;
    /** Seconds since the last market data event (null: none yet). */
    readonly marketDataAgeSec: number | null;
    readonly marketStream: 'up' | 'down';
    readonly userStream: 'up' | 'down' | 'none';
    readonly staleBooks: number;
    readonly heartbeatFailures: number;
    readonly killSwitch: boolean;
  };
}

/** Judge the daemon's health at `now` (unix ms). Pure. */
export function assessHealth(h: HealthInput, now: number): HealthReport {
  const reasons: HealthReason[] = [];
  switch (h.lifecycle) {
    case 'starting':
      reasons.push({ code: 'starting', message: 'the daemon is starting' });
      break;
    case 'reconciling':
      reasons.push({ code: 'reconciling', message: 'reconciliation with the venue is pending: not quoting yet' });
      break;
    case 'stopping':
      reasons.push({ code: 'stopping', message: 'the daemon is stopping: cancelling all orders' });
      break;
    case 'stopped':
      reasons.push({ code: 'stopped', message: 'the daemon has stopped' });
      break;
    case 'running':
      break;
  }
  if (h.killSwitch.tripped)
    reasons.push({
      code: 'kill_switch',
      message: `kill switch tripped${h.killSwitch.trigger ? ` (${h.killSwitch.trigger}${h.killSwitch.message ? `: ${h.killSwitch.message}` : ''})` : ''}`,
    });
  const live = h.lifecycle === 'running' || h.lifecycle === 'reconciling';
  if (live && !h.market.connected)
    reasons.push({
      code: 'market_stream_down',
      message: `market stream disconnected${h.market.reason ? `: ${h.market.reason}` : ''}`,
    });
  if (live && h.user !== undefined && !h.user.connected)
    reasons.push({
      code: 'user_stream_down',
      message: `user stream disconnected${h.user.reason ? `: ${h.user.reason}` : ''}`,
    });
  const age = h.market.lastDataAt > 0 ? Math.max(0, now - h.market.lastDataAt) : null;
  // every followed market resolved: nothing more comes, and the silence is expected (trial 25 F5: it flapped)
  const allRetired = h.books.length > 0 && h.books.every((b) => b.retired === true);
  if (h.lifecycle === 'running' && h.feedStaleMs > 0 && h.market.connected && !allRetired) {
    // before the first data event, the silence counts from when the daemon started running
    const silentFor = age ?? (h.runningSince > 0 ? now - h.runningSince : 0);
    if (silentFor > h.feedStaleMs)
      reasons.push({
        code: 'feed_stale',
        message: `no market data for ${(silentFor / 1000).toFixed(1)} s (limit ${(h.feedStaleMs / 1000).toFixed(1)} s)`,
      });
  }
  const stale = h.books.filter((b) => b.stale && b.retired !== true);
  if (h.lifecycle === 'running' && stale.length > 0) {
    const names = stale.slice(0, 3).map((b) => `${b.outcome} of ${b.market.slice(0, 10)}…`);
    reasons.push({
      code: 'feed_stale',
      message: `${stale.length} stale book(s): ${names.join(', ')}${stale.length > 3 ? ', …' : ''}`,
    });
  }
  if (h.heartbeat.consecutiveFailures > 0) {
    reasons.push({
      code: 'heartbeat_failing',
      message: `${h.heartbeat.consecutiveFailures} consecutive heartbeat failure(s)${h.heartbeat.error ? `: ${h.heartbeat.error}` : ''}`,
    });
  }
  if (h.strategyFailing !== undefined)
    reasons.push({
      code: 'strategy_failing',
      message: `the strategy erred on ${h.strategyFailing.consecutive} evaluations in a row (last: ${h.strategyFailing.lastError}): every quote pulled until one succeeds`,
    });
  if (h.fleetUnreachable === true)
    reasons.push({
      code: 'fleet_unreachable',
      message: "the fleet's Redis cannot be reached: quotes pulled, placing paused until it is back",
    });
  const healthy = reasons.length === 0;
  return {
    status: healthy ? 'ok' : 'unhealthy',
    healthy,
    reasons,
    checks: {
      lifecycle: h.lifecycle,
      marketDataAgeSec: age === null ? null : Math.round(age / 100) / 10,
      marketStream: h.market.connected ? 'up' : 'down',
      userStream: h.user === undefined ? 'none' : h.user.connected ? 'up' : 'down',
      staleBooks: stale.length,
      heartbeatFailures: h.heartbeat.consecutiveFailures,
      killSwitch: h.killSwitch.tripped,
    },
  };
}
