/**
 * The fleet on a member's status (issue 21; src/ops/status.ts `fleet`): the section, and how it is
 * made from the fleet's state as `mmkit fleet status` reads it (src/cli/fleet-status.ts).
 */

/** The fleet as the status shows it (money as decimal strings; from the members' status records). */
export interface FleetStatusSection {
  /** This daemon's member name. */
  readonly member: string;
  readonly members: ReadonlyArray<{
    readonly member: string;
    readonly markets: number;
    readonly openOrders: number;
    readonly pnl: string;
    readonly heartbeat: boolean;
  }>;
  readonly totalPnl: string;
  /** The heartbeat lease holder (null: none). */
  readonly heartbeat: string | null;
  /** The fleet kill switch: null armed, else the trip's reason. */
  readonly kill: string | null;
  /**
   * Who holds each fleet market, as the members' status records say (market -> member; a market no
   * record lists is absent): the status marks a market another member holds as `held by <member>`.
   */
  readonly holders?: Readonly<Record<string, string>>;
}

/** The fleet's state, as far as the section needs it (FleetStatusReport of src/cli/fleet-status.ts fits). */
export interface FleetStateLike {
  readonly members: readonly string[];
  readonly records: ReadonlyArray<{
    readonly member: string;
    readonly markets: readonly unknown[];
    readonly openOrders: number;
    readonly pnl: { readonly total: string };
  }>;
  readonly total: { readonly total: string };
  readonly heartbeat: { readonly holder: string } | null;
  readonly kill: { readonly reason: string } | null;
}

/** The fleet section of member `member`'s status, from the fleet's state. */
export function fleetStatusSection(member: string, r: FleetStateLike): FleetStatusSection {
  return {
    member,
    members: r.members.map((m) => {
      const x = r.records.find((y) => y.member === m);
      return {
        member: m,
        markets: x?.markets.length ?? 0,
        openOrders: x?.openOrders ?? 0,
        pnl: x?.pnl.total ?? '0',
        heartbeat: r.heartbeat?.holder === m,
      };
    }),
    totalPnl: r.total.total,
    heartbeat: r.heartbeat?.holder ?? null,
    kill: r.kill?.reason ?? null,
    holders: holdersOf(r.records),
  };
}

/** market -> the member whose status record lists it (the first, should two records lag behind a move). */
function holdersOf(records: FleetStateLike['records']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const x of records) for (const m of x.markets) if (typeof m === 'string' && !(m in out)) out[m] = x.member;
  return out;
}
