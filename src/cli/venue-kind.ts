/**
 * Paper or live: the one decision every command takes the same way (`mmkit run`, `doctor`,
 * `config check` and the operator commands through venue.ts). A paper venue is treated leniently:
 * no pre-flight checks before `mmkit run`, bot.autoMerge / bot.autoRedeem `auto` on, a paper wallet
 * minted in the data directory when none is configured. A real venue gets none of that.
 *
 * Loopback alone does not make a venue paper: a real venue is often reached through a local tunnel
 * or gateway (an SSH or TLS forward on 127.0.0.1). So, with venue.kind `auto` (the default), a venue
 * is paper only when every URL is on loopback AND nothing of a live setup is configured: no wallet
 * (bot.keystoreFile or MMKIT_PRIVATE_KEY), no venue.contracts.*, no doctor.geoblockUrl (the public
 * service's profile sets all three). The operator says it outright with venue.kind `paper` or `live`
 * (MMKIT_VENUE_KIND). The daemon's own in-process paper exchange is always paper.
 *
 * The venue is not asked (a paper exchange answers GET /clob/world): `config check` never contacts
 * it, and an exchange standing in for the real one must be treated as the real one.
 */

/** venue.kind: `auto` decides from the URLs and the configuration; `paper` and `live` say it. */
export type VenueKindSetting = 'auto' | 'paper' | 'live';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** True when the URL's host is loopback. */
export function isLoopbackUrl(url: string): boolean {
  try {
    const h = new URL(url).hostname;
    return LOOPBACK.has(h) || h.startsWith('127.');
  } catch {
    return false;
  }
}

/** What the decision reads. */
export interface VenueKindInput {
  /** venue.kind. */
  readonly setting: VenueKindSetting;
  /** The venue's URLs ('' or undefined: not set, not counted). */
  readonly urls: ReadonlyArray<string | undefined>;
  /** The daemon's in-process paper exchange. */
  readonly inProcess: boolean;
  /** A wallet is configured: bot.keystoreFile or MMKIT_PRIVATE_KEY. */
  readonly wallet: boolean;
  /** A marker of a live setup is configured: venue.contracts.* or doctor.geoblockUrl. */
  readonly liveMarkers: boolean;
}

/** The decision and why (for messages: "live: a wallet is configured"). */
export interface VenueKind {
  readonly paper: boolean;
  readonly why: string;
}

/** Paper or live (see the module comment for the rules). */
export function venueKind(i: VenueKindInput): VenueKind {
  if (i.inProcess) return { paper: true, why: 'the in-process paper exchange' };
  if (i.setting === 'paper') return { paper: true, why: 'venue.kind paper' };
  if (i.setting === 'live') return { paper: false, why: 'venue.kind live' };
  if (!i.urls.every((u) => u === undefined || u === '' || isLoopbackUrl(u)))
    return { paper: false, why: 'a venue URL is not on loopback' };
  if (i.wallet)
    return {
      paper: false,
      why: 'a wallet is configured (bot.keystoreFile or MMKIT_PRIVATE_KEY; venue.kind paper says otherwise)',
    };
  if (i.liveMarkers)
    return { paper: false, why: 'venue.contracts or doctor.geoblockUrl is set (venue.kind paper says otherwise)' };
  return { paper: true, why: 'every URL is on loopback and no wallet is configured' };
}

/** The parts of the configuration the decision reads (MmkitConfig has them all). */
export interface VenueKindConfig {
  readonly venue: {
    readonly kind: VenueKindSetting;
    readonly contracts: { readonly exchange: string; readonly negRiskExchange: string; readonly collateral: string };
  };
  readonly bot: { readonly keystoreFile: string };
  readonly doctor: { readonly geoblockUrl: string };
  readonly secrets: { readonly privateKey: string };
}

/** True when the configuration has a live marker: venue.contracts.* or doctor.geoblockUrl. */
export function liveMarkersOf(c: {
  readonly contracts: VenueKindConfig['venue']['contracts'];
  readonly geoblockUrl: string;
}): boolean {
  return Object.values(c.contracts).some((a) => a !== '') || c.geoblockUrl !== '';
}

/** Paper or live for a configuration and its venue's URLs. */
export function venueKindOf(
  cfg: VenueKindConfig,
  urls: ReadonlyArray<string | undefined>,
  inProcess = false,
  env: Record<string, string | undefined> = process.env,
): VenueKind {
  return venueKind({
    setting: cfg.venue.kind,
    urls,
    inProcess,
    wallet: cfg.bot.keystoreFile !== '' || cfg.secrets.privateKey !== '' || Boolean(env['MMKIT_PRIVATE_KEY']),
    liveMarkers: liveMarkersOf({ contracts: cfg.venue.contracts, geoblockUrl: cfg.doctor.geoblockUrl }),
  });
}
