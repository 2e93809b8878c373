/** The `fleet.*` section of the configuration: several daemons of one account sharing state in Redis. */
export const fleetSchema = {
  redisUrl: {
    doc: "A fleet: the Redis holding the account's shared state (budgets, heartbeat lease, risk limits, market leases, kill switch), redis://[user:password@]host:port[/db]. Empty: one process, no Redis (as always). Environment only, like the secrets: never read from a file, never logged (it may carry a password).",
    format: String,
    default: '',
    env: 'MMKIT_REDIS_URL',
    sensitive: true,
  },
  member: {
    doc: "This daemon's name in the fleet (letters, digits, '.', '_', '-'; unique per account). Empty: <hostname>-<pid>.",
    format: String,
    default: '',
    env: 'MMKIT_FLEET_MEMBER',
  },
  maxMembers: {
    doc: 'Most daemons in the fleet of one account: a member beyond it refuses to start. The emergency reserves (fleet.reserve, and half of the per-signer cancel bucket split among this many) of this many members are kept out of the shared budgets: set it to the real size of the fleet. The same on every member; 0: no cap (only with fleet.reserve 0).',
    format: 'nat',
    default: 8,
    env: 'MMKIT_FLEET_MAX_MEMBERS',
  },
  reserve: {
    doc: 'Emergency reserve per member: requests per 10 s of each rule of DELETE /orders, DELETE /cancel-all, DELETE /cancel-market-orders and POST /v1/heartbeats (or 1 % of the rule limit when more: a 10-minute rule keeps 60 times as many; at most half its limit for the fleet) kept out of the shared budgets, so a member can pull its quotes and feed the dead-man switch while Redis is unreachable; a request waits at most 1 s for it. 0: none. The same on every member.',
    format: 'nat',
    default: 4,
    env: 'MMKIT_FLEET_RESERVE',
  },
};

export type FleetConfig = { redisUrl: string; member: string; maxMembers: number; reserve: number };
