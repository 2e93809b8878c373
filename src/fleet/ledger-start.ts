/**
 * The start of a fleet member's ledger (src/fleet/fleet-ledger.ts LedgerPublisher) with the claim of
 * the account's history that must come before its first publish (review-1 F1; `mmkit run` joins the
 * fleet in src/cli/run-fleet.ts, which loads this module only in a fleet). The claim itself is the
 * fleet's registry's (src/fleet/member-orders.ts), loaded only when asked.
 */
import type { FleetMember } from './member.ts';

/**
 * Starts this member's ledger publisher, claiming the account's history first when its store has no
 * fill yet (`claimHistory`; review-1 F1). The claim gives the history to the first ledger when no
 * OTHER ledger is published, so a member must claim before it publishes: members started together
 * that each published first would each see the other's ledger, and nobody would book the history.
 * Claimed first, the first claimer gets it whatever the interleaving, and a fleet whose ledgers were
 * published before the record existed still gets `-` (src/fleet/member-orders.ts).
 * Returns the claim's answer (undefined: not asked).
 * @throws what Redis throws on the claim (nothing published then)
 */
export async function startFleetLedger(
  member: Pick<FleetMember, 'redis' | 'keys'>,
  o: { ledgerId: string; claimHistory: boolean; publisher: { start(): Promise<void> } },
): Promise<boolean | undefined> {
  let history: boolean | undefined;
  if (o.claimHistory) {
    const { claimHistory } = await import('./member-orders.ts');
    history = await claimHistory(member.redis, member.keys, o.ledgerId);
  }
  await o.publisher.start();
  return history;
}
