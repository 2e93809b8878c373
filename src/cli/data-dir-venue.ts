/**
 * The venue a data dir last traded on, for the operator commands that act on the wallet's orders and
 * holdings (`mmkit orders`, `orders cancel`, `cancel-all`, `positions`).
 *
 * Why: after a daemon crash the operator is told to list and cancel what it may have left resting.
 * Without a configured venue (--exchange-url, venue.*Url) and without a living daemon's venue.json,
 * resolveVenue (venue.ts) falls back to the config's paper exchange address (127.0.0.1:8080): a
 * connection error at best, and at worst another exchange there answers a confident "0 open
 * order(s)" while the dead daemon's orders rest at the venue it traded. So these commands ask, in
 * order: the configured venue; a living daemon's venue.json; a gone daemon's venue.json (a crash
 * leaves it); the venue of the store's current ledger epoch (`<clob URL>#<chain>`, `shadow:` before
 * it for a shadow run's, `inprocess:` for a run on the in-process paper exchange); only then the default,
 * said as such. A recorded venue is announced on stderr with where it came from and how to ask another
 * (--exchange-url).
 *
 * A daemon's in-process paper exchange lives on a random loopback port and ends with the daemon, its
 * orders and holdings with it: asking its recorded address after the daemon is gone finds nothing, or
 * another process that took the port. So when the recorded venue was in-process (venue.json's
 * `inProcess`, the epoch's `inprocess:`), the commands do not connect: `orders` and `cancel-all` say
 * nothing rests (exit 0), `positions` points to `--source store` (venueCommandConfig's `ended`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../core/errors.ts';
import { storeOpenError } from '../store/open-errors.ts';
import type { LedgerEpoch } from '../store/store-types.ts';
import type { MmkitConfig } from './config.ts';
import { DAEMON_VENUE_FILE, readDaemonVenue, resolveVenue, type LivenessOptions, type ResolvedVenue } from './venue.ts';

/**
 * Put before the venue of a ledger epoch opened on the daemon's in-process paper exchange
 * (`inprocess:http://127.0.0.1:<port>/clob#137`): that venue ended with its daemon (see the module comment).
 */
export const IN_PROCESS_VENUE_PREFIX = 'inprocess:';

/** A configuration whose venue is the one the data dir records (see the module comment). */
export interface DataDirVenue {
  /** The configuration to connect with (bot.exchangeUrl / venue.*Url set to the recorded venue when one is used). */
  readonly cfg: MmkitConfig;
  /** Where the venue came from, for notes and errors. */
  readonly from: string;
  /** The venue's CLOB URL, when one resolves. */
  readonly clob: string | undefined;
  /** True when the venue is one the data dir recorded (a gone daemon's venue.json, the store's epoch). */
  readonly recorded: boolean;
  /** True when the recorded daemon ran the in-process paper exchange: it ended with its daemon. */
  readonly inProcess?: boolean;
}

/**
 * The configuration the command talks to the venue with: the configured venue, a living daemon's
 * venue.json, else the venue the data dir last traded on (a gone daemon's venue.json, else the store
 * epoch's `epochVenue`), never the default 127.0.0.1:8080 when the data dir names one.
 * @param epochVenue the venue of the store's current ledger epoch, if known
 * @param resolved `resolveVenue(cfg)` when the caller has it already (its decision whether the daemon lives is kept)
 */
export function dataDirVenue(cfg: MmkitConfig, epochVenue: string | undefined, resolved?: ResolvedVenue): DataDirVenue {
  const clobOf = (c: MmkitConfig): string | undefined => {
    try {
      return resolveVenue(c).urls.clob;
    } catch {
      return undefined;
    }
  };
  let r: ResolvedVenue;
  try {
    r = resolved ?? resolveVenue(cfg);
  } catch {
    return { cfg, from: 'the configuration', clob: undefined, recorded: false };
  }
  if (r.source !== 'default')
    return {
      cfg,
      from: r.source === 'daemon' ? `${DAEMON_VENUE_FILE} of the running daemon` : 'the configuration',
      clob: r.urls.clob,
      recorded: false,
    };
  const gone = readDaemonVenue(cfg.bot.dataDir, { checkAlive: false });
  if (gone !== undefined) {
    const venue = { ...cfg.venue };
    for (const [k, u] of Object.entries(gone.urls ?? {})) (venue as Record<string, unknown>)[`${k}Url`] = u;
    const c = { ...cfg, bot: { ...cfg.bot, exchangeUrl: gone.url ?? '' }, venue };
    const clob = clobOf(c);
    if (clob !== undefined)
      return {
        cfg: c,
        from: `${join(cfg.bot.dataDir, DAEMON_VENUE_FILE)} (its daemon is gone)`,
        clob,
        recorded: true,
        ...(gone.inProcess === true ? { inProcess: true } : {}),
      };
  }
  const m =
    epochVenue === undefined ? null : /^(?:shadow:)?(inprocess:)?(https?:\/\/[^#]+?)\/*(?:#\d+)?$/.exec(epochVenue);
  if (m !== null) {
    const url = m[2]!;
    const base = url.endsWith('/clob') ? url.slice(0, -'/clob'.length) : new URL(url).origin;
    const c = { ...cfg, bot: { ...cfg.bot, exchangeUrl: base }, venue: { ...cfg.venue, clobUrl: url } };
    return {
      cfg: c,
      from: "the store's ledger epoch",
      clob: url,
      recorded: true,
      ...(m[1] !== undefined ? { inProcess: true } : {}),
    };
  }
  return {
    cfg,
    from: 'the default paper exchange (the data dir records no venue)',
    clob: r.urls.clob,
    recorded: false,
  };
}

/**
 * The current ledger epoch of the data dir's store (bot.storeFile, else <dataDir>/mmkit.db);
 * undefined when there is no store or no epoch. Never creates a store. A store that cannot be read
 * (damaged, not a database, unreadable) throws the ConfigError of src/store/open-errors.ts naming
 * the file: it used to count as "no store", so `mmkit orders --data-dir` on a live data dir with a
 * damaged store asked the default paper exchange and reported no orders.
 */
export async function storeCurrentEpoch(cfg: MmkitConfig): Promise<LedgerEpoch | undefined> {
  const file = storeFileOf(cfg);
  if (!existsSync(file)) return undefined;
  const { openStore } = await import('../store/store.ts');
  try {
    const store = openStore(file, { checkpoint: 'auto' });
    try {
      return store.currentEpoch();
    } finally {
      store.close();
    }
  } catch (e) {
    // damaged, not a database, unreadable: said, naming the file; anything else (a busy store a
    // running daemon writes) records nothing for now: the commands fall back as before
    // (openStore names its own open failures already: a ConfigError)
    if (e instanceof ConfigError) throw e;
    const named = storeOpenError(file, e);
    if (named !== e) throw named;
    return undefined;
  }
}

/** The data dir's store file: bot.storeFile, else <dataDir>/mmkit.db. */
export function storeFileOf(cfg: MmkitConfig): string {
  return cfg.bot.storeFile || join(cfg.bot.dataDir, 'mmkit.db');
}

/** The venue of the current ledger epoch of the data dir's store (storeCurrentEpoch); undefined when none. */
export async function storeEpochVenue(cfg: MmkitConfig): Promise<string | undefined> {
  return (await storeCurrentEpoch(cfg))?.venue;
}

/** What a venue command on the wallet's orders or holdings talks to (see venueCommandConfig). */
export interface VenueCommandTarget {
  /** The configuration to connect with. */
  readonly cfg: MmkitConfig;
  /**
   * The venue resolved for `cfg`, once: give it to withSession / openSession (`venue`) rather than
   * resolving again. A daemon whose pid still answered here (a zombie not yet reaped after kill -9)
   * may be gone a moment later, and resolving again would then fall to the default paper exchange
   * address (127.0.0.1:8080) while its orders rest at the venue it recorded. Undefined when the
   * venue configuration is bad (the command's own resolution reports it).
   */
  readonly venue?: ResolvedVenue;
  /**
   * Set when the venue the data dir last traded on was its gone daemon's in-process paper exchange:
   * why there is nothing to ask (it ended with that daemon, its orders and holdings with it). Connect to nothing.
   */
  readonly ended?: string;
}

/**
 * The configuration a venue command on the wallet's orders or holdings connects with (see the
 * module comment). When the venue is one the data dir recorded, says so with `note` (stderr), with
 * the flag that asks another one; when that venue was a gone daemon's in-process paper exchange, says
 * nothing and returns `ended`: the command reports it its own way. Whether a recorded daemon lives is
 * asked once, here: the command connects with the returned `venue` (withSession's `venue`).
 * @param o.alive the liveness check of a recorded daemon's pid (default venue.ts pidAlive)
 */
export async function venueCommandConfig(
  cfg: MmkitConfig,
  note: (msg: string) => void,
  o: LivenessOptions = {},
): Promise<VenueCommandTarget> {
  // whether the recorded daemon lives is asked here once (see VenueCommandTarget.venue)
  let r: ResolvedVenue;
  try {
    r = resolveVenue(cfg, o);
  } catch {
    // a bad venue configuration: the command's own resolution reports it
    return { cfg };
  }
  if (r.source !== 'default') return { cfg, venue: r };
  const v = dataDirVenue(cfg, await storeEpochVenue(cfg), r);
  if (!v.recorded) return { cfg, venue: r };
  if (v.inProcess === true)
    return {
      cfg,
      venue: r,
      ended:
        `no venue configured and no daemon running in ${cfg.bot.dataDir}: the venue it last traded on, ${v.clob} ` +
        `(from ${v.from}), was its daemon's paper exchange in-process, which ended with it, and its orders and ` +
        'holdings with it',
    };
  note(
    `no venue configured and no daemon running in ${cfg.bot.dataDir}: asking the venue it last traded on, ${v.clob} ` +
      `(from ${v.from}); pass --exchange-url to ask another`,
  );
  // (a recorded venue is configured in v.cfg: resolving it asks no pid)
  return { cfg: v.cfg, venue: resolveVenue(v.cfg) };
}
