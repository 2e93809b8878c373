/**
 * How a venue's URL is shown to people (/api/status, the status page, `mmkit run`'s exit summary,
 * `mmkit positions`): never its credentials nor a query token, and a ledger epoch's venue without its
 * chain. A module of its own, without dependencies: the CLI's summaries import it without loading the
 * daemon's ops (./daemon-ops.ts re-exports both).
 */

/** A URL as it may be shown: no user:password, no query (a gateway URL may carry a token there). */
export function publicUrl(u: string): string {
  try {
    const x = new URL(u);
    return `${x.protocol}//${x.host}${x.pathname === '/' ? '' : x.pathname}`;
  } catch {
    return '';
  }
}

/**
 * A ledger epoch's venue as it may be shown: its URL as publicUrl shows it, without the chain, and the
 * `shadow:` / `inprocess:` mark before it (src/cli/data-dir-venue.ts) kept as it is.
 */
export function epochVenueShown(venue: string): string {
  const m = /^((?:shadow:|inprocess:)*)(.*)$/s.exec(venue.replace(/#\d+$/, ''))!;
  return `${m[1]}${publicUrl(m[2]!)}`;
}
