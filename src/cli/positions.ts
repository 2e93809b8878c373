/**
 * `mmkit positions`: what the wallet holds.
 *
 *  - `--source venue` (default): the venue's Data API (GET /users/{address}/positions, every page):
 *    the authoritative holdings of the address, whoever traded them, with the venue's marks
 *    (current value, cash and realized PnL). Public: no API key is created. Without a configured
 *    venue or a running daemon, the venue the data dir last traded on (data-dir-venue.ts); when that
 *    was the daemon's in-process paper exchange, the holdings ended with it: an error points to the store.
 *    The venue lists the tokens held only (size > 0): a closed position's realized PnL is in no row, so
 *    the PnL line comes from the venue's GET /users/{address}/pnl (realized over every position ever
 *    held; unrealized over the marked open ones), when it serves one (findings-8 F2).
 *  - `--source store`: the daemon's local SQLite store (<dataDir>/mmkit.db or bot.storeFile):
 *    positions of the store's current ledger epoch (the venue, world and address the daemon last
 *    traded on), derived from its fills (the bot's and external ones), adjustments to the venue's
 *    truth and split / merge / redeem operations (cost, realized PnL, fees, fill counts). Works
 *    with the venue down; no marks, so no unrealized PnL. The same table and decimals as the venue
 *    source (title and outcome from the venue's market listing when it answers; average price,
 *    cost and realized PnL at 6 decimals exact from the store's integers), so the two compare
 *    token by token for the tokens held (the store lists its closed positions too).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { NotFoundError } from '../core/errors.ts';
import { isAddress } from '../core/ids.ts';
import { displayAddress } from '../ops/address-display.ts';
import { formatAmount, formatPrice } from '../core/units.ts';
import {
  action,
  addCommonOptions,
  configFrom,
  note,
  openSession,
  printJson,
  printTable,
  withSession,
  type CommonOptions,
  type Session,
} from './common.ts';
import type { MmkitConfig } from './config.ts';
import { CliError, EXIT_CODES_HELP, ExitCode, usageError } from './exit-codes.ts';
import { dataDirVenue, venueCommandConfig } from './data-dir-venue.ts';
import { resolveVenue } from './venue.ts';
import { dataDirAccount, otherAccountNote } from './data-dir-wallet.ts';
import { epochVenueText } from './run-summary.ts';
import { utcDate } from '../risk/kill-switch.ts';

interface PositionsOptions extends CommonOptions {
  source: 'venue' | 'store';
  address?: string;
}

/** Signed micro-units as a decimal string. */
const signed = (n: number) => formatAmount(n);

/** The columns of both sources' tables, so the two compare token by token (the store has no marks: "-"). */
const TABLE_COLUMNS = [
  'title',
  'outcome',
  'size',
  'avgPrice',
  'initialValue',
  'curPrice',
  'currentValue',
  'cashPnl',
  'realizedPnl',
] as const;

const shortTitle = (t: string) => (t.length > 40 ? t.slice(0, 39) + '…' : t);

/**
 * The configuration the store source asks the venue's market listing with (data-dir-venue.ts): the
 * configured venue, a living daemon's, else the venue the data dir last traded on.
 * @returns the configuration and where its venue came from
 */
export function storeVenue(
  cfg: MmkitConfig,
  epochVenue: string | undefined,
): { cfg: MmkitConfig; from: string; clob: string | undefined; inProcess?: boolean } {
  const v = dataDirVenue(cfg, epochVenue);
  return { cfg: v.cfg, from: v.from, clob: v.clob, ...(v.inProcess === true ? { inProcess: true } : {}) };
}

/**
 * Question and outcome of every token of `markets`, from the venue's market listing; best effort
 * (the store source works offline): a venue that does not answer within a few seconds leaves them
 * unknown, with a note saying so (a market the venue answered it does not know is said apart).
 */
async function tokenLabels(
  cfg: MmkitConfig,
  markets: ReadonlySet<string>,
  venue: { from: string; clob: string | undefined; inProcess?: boolean },
): Promise<Map<string, { title: string; outcome: string }>> {
  const out = new Map<string, { title: string; outcome: string }>();
  if (markets.size === 0) return out;
  if (venue.inProcess === true) {
    // the daemon's in-process exchange ended with it: nothing to ask (another process may hold its port)
    note(
      `the venue at ${venue.clob ?? '?'} (from ${venue.from}) was an in-process paper exchange that ended with ` +
        'its daemon: tokens are shown by id',
    );
    return out;
  }
  const quick = { ...cfg, venue: { ...cfg.venue, timeoutMs: Math.min(cfg.venue.timeoutMs || 3000, 3000) } };
  const where = `the venue at ${venue.clob ?? '?'} (from ${venue.from})`;
  let s: Session | undefined;
  try {
    s = await openSession(quick, { auth: false });
    const session = s;
    const signal = AbortSignal.timeout(5000);
    const found = await Promise.allSettled([...markets].map((m) => session.clob.market(m, { signal })));
    let missing = 0;
    let unanswered = 0;
    let why = '';
    for (const r of found) {
      if (r.status === 'rejected') {
        if (r.reason instanceof NotFoundError) missing++;
        else {
          unanswered++;
          why ||= (r.reason as Error).message;
        }
        continue;
      }
      for (const t of r.value.tokens) out.set(t.tokenId, { title: r.value.question, outcome: t.outcome });
    }
    if (unanswered) note(`${where} did not answer (${why}): ${unanswered} market(s) shown by token id`);
    if (missing) note(`${missing} market(s) not in the listing of ${where}: their tokens are shown by id`);
  } catch (e) {
    note(`${where} did not answer (${(e as Error).message}): tokens are shown by id`);
  } finally {
    await s?.close();
  }
  return out;
}

export function register(program: Command): void {
  const cmd = program
    .command('positions')
    .description("the wallet's positions: from the venue's Data API (default) or the daemon's local store")
    .option(
      '--source <venue|store>',
      'venue: the Data API, authoritative, with marks; store: the local SQLite store of the daemon (its current ledger epoch; offline)',
      (v: string) => {
        if (v !== 'venue' && v !== 'store') throw new InvalidArgumentError('--source takes venue or store');
        return v;
      },
      'venue',
    )
    .option('--address <address>', 'positions of this address instead of the wallet (venue source only)')
    .option('--store-file <file>', 'the SQLite store (default <dataDir>/mmkit.db) [bot.storeFile]');
  addCommonOptions(cmd, { wallet: true });
  cmd.addHelpText(
    'after',
    `
Sizes are shares and money is collateral, as decimal strings.

Examples:
  mmkit positions
  mmkit positions --json | jq '.positions[] | {title, size, cashPnl}'
  mmkit positions --source store --data-dir data
  mmkit positions --address 0x1111111111111111111111111111111111111111
${EXIT_CODES_HELP}`,
  );
  cmd.action(
    action(async (o: PositionsOptions & { storeFile?: string }) => {
      const cfg = configFrom(o, { 'bot.storeFile': o.storeFile });
      if (o.source === 'store') {
        if (o.address !== undefined) throw usageError('--address works with --source venue only');
        const file = cfg.bot.storeFile || join(cfg.bot.dataDir, 'mmkit.db');
        if (!existsSync(file))
          throw usageError(`no store at ${file} (the daemon creates it; --data-dir or --store-file point elsewhere)`);
        const { openStore } = await import('../store/store.ts');
        const store = openStore(file, { checkpoint: 'auto' });
        try {
          const e = store.currentEpoch();
          const epoch =
            e === undefined
              ? null
              : {
                  id: e.id,
                  // as the exit summary and /api/status show it: no chain, no credentials of a URL
                  venue: epochVenueText(e.venue),
                  world: e.world,
                  address: displayAddress(e.address),
                  startedAt: new Date(e.startedAt).toISOString(),
                };
          const positions = store.positions();
          const decimals = new Map(store.positionDecimals().map((d) => [d.tokenId, d]));
          const venue = storeVenue(cfg, e?.venue);
          const labels = await tokenLabels(venue.cfg, new Set(positions.map((p) => p.market)), venue);
          const rows = positions.map((p) => {
            const d = decimals.get(p.tokenId);
            const l = labels.get(p.tokenId);
            return {
              market: p.market,
              tokenId: p.tokenId,
              title: l?.title ?? null,
              outcome: l?.outcome ?? null,
              size: signed(p.size),
              // the venue's 6 decimals, exact from the store's integers
              avgPrice: d?.avgPrice ?? formatPrice(p.avgPrice),
              cost: d?.cost ?? signed(p.cost),
              realizedPnl: d?.realized ?? signed(p.realized),
              fees: formatAmount(p.fees),
              bought: formatAmount(p.bought),
              sold: formatAmount(p.sold),
              fills: p.fills,
            };
          });
          // PnL apart and together (no marks: trading is the realized part)
          const pnl = store.pnl(new Map());
          const rt = store.rewardTotals();
          const totals = {
            trading: signed(pnl.realized),
            fees: formatAmount(pnl.fees),
            rewards: {
              paid: formatAmount(rt.paid),
              estimated: formatAmount(rt.estimated),
              total: formatAmount(rt.total),
            },
            total: signed(pnl.realized - pnl.fees + rt.total),
          };
          // the UTC day's open as the daily loss limit keeps it (bot.risk.maxDailyLoss; null: not opened
          // today): the day's PnL is the PnL now, with marks, less it (`mmkit status` while the daemon runs)
          const today = utcDate(Date.now());
          const opened = store.dayOpen(today);
          const dayOpen = opened === undefined ? null : { date: today, pnl: signed(opened) };
          const rewards = store.rewards().map((r) => ({
            market: r.market,
            date: r.date,
            status: r.status,
            estimated: formatAmount(r.estimated),
            paid: formatAmount(r.paid),
          }));
          if (o.json)
            printJson({
              source: 'store',
              file,
              epoch,
              count: rows.length,
              positions: rows,
              pnl: totals,
              dayOpen,
              rewards,
            });
          else {
            const which =
              epoch === null
                ? 'no ledger epoch (every recorded fill)'
                : `epoch ${epoch.id} (venue ${epoch.venue}, world ${epoch.world ?? 'none'}, since ${epoch.startedAt})`;
            process.stderr.write(
              `mmkit: ${rows.length} position(s) in ${file}, ${which}: from the store's fills, adjustments and operations; no marks\n`,
            );
            if (rows.length)
              printTable(
                rows.map((r) => ({
                  ...r,
                  title: r.title === null ? r.tokenId : shortTitle(r.title),
                  initialValue: r.cost,
                  curPrice: null,
                  currentValue: null,
                  cashPnl: null,
                })),
                [...TABLE_COLUMNS, 'fees', 'fills'],
              );
            if (rewards.length) {
              process.stderr.write(
                'mmkit: liquidity rewards per market and UTC date (estimated by the bot until the venue pays):\n',
              );
              printTable(rewards, ['market', 'date', 'status', 'estimated', 'paid']);
            }
            process.stderr.write(
              `mmkit: PnL (USDC, realized: no marks): trading ${totals.trading} - fees ${totals.fees} + rewards ${totals.rewards.total} (paid ${totals.rewards.paid}, estimated ${totals.rewards.estimated}) = ${totals.total}\n`,
            );
            process.stderr.write(
              dayOpen === null
                ? `mmkit: the UTC day ${today} has not opened in this store (with bot.risk.maxDailyLoss set, the daemon opens it at its first complete reading of the day)\n`
                : `mmkit: the UTC day ${today} opened at PnL ${dayOpen.pnl} (the daily loss limit's reference: the day's PnL is the loss limit's PnL now, realized + unrealized at the marks net of fees, rewards left out, less it; \`mmkit status\` shows it while the daemon runs)\n`,
            );
          }
        } finally {
          store.close();
        }
        return;
      }
      // without --address: the data dir's account, never a paper wallet of another address (data-dir-wallet.ts)
      const acct =
        o.address === undefined
          ? await dataDirAccount(cfg, { configGiven: o.config !== undefined }, note)
          : { cfg, recorded: undefined };
      const { cfg: vcfg, ended, venue } = await venueCommandConfig(acct.cfg, note);
      // the holdings ended with the in-process exchange: the store keeps what the bot booked
      if (ended !== undefined)
        throw new CliError(
          `${ended}: there is no venue to read; the daemon's store has what it booked: ` +
            `mmkit positions --source store --data-dir ${cfg.bot.dataDir} (or --exchange-url to ask another venue)`,
          ExitCode.FAILURE,
        );
      let address = o.address;
      if (address !== undefined && !isAddress(address)) throw usageError('--address takes 0x + 40 hex digits');
      if (address === undefined) {
        const { resolveWallet } = await import('./wallet.ts');
        const w = await resolveWallet({
          keystoreFile: acct.cfg.bot.keystoreFile,
          dataDir: cfg.bot.dataDir,
          allowPaper: (venue ?? resolveVenue(vcfg)).paper,
          createPaper: false,
        });
        address = acct.cfg.venue.funder || w.wallet.address;
        const other = otherAccountNote(cfg.bot.dataDir, acct.recorded, address);
        if (other !== undefined) note(other);
      }
      const addr = address.toLowerCase();
      return withSession(vcfg, { auth: false, json: o.json, venue }, async (s) => {
        const rows = [];
        for await (const p of s.data.iterUserPositions(addr)) {
          rows.push({
            market: p.conditionId,
            tokenId: p.asset,
            outcome: p.outcome,
            title: p.title,
            size: p.size,
            avgPrice: p.avgPrice,
            initialValue: p.initialValue,
            curPrice: p.curPrice,
            currentValue: p.currentValue,
            cashPnl: p.cashPnl,
            realizedPnl: p.realizedPnl,
            fees: p.fees,
          });
        }
        // liquidity rewards the venue paid the address (its REWARD activity: public, collateral per market)
        const paidBy = new Map<string, number>();
        let paid = 0;
        try {
          for await (const a of s.data.iterActivity(addr, { type: 'REWARD' })) {
            if (a.type !== 'REWARD') continue;
            paid += a.usdcSize;
            paidBy.set(a.conditionId, (paidBy.get(a.conditionId) ?? 0) + a.usdcSize);
          }
        } catch {
          /* a venue without the activity feed: no rewards figure */
        }
        const rewards = {
          paid: formatAmount(paid),
          byMarket: [...paidBy].map(([market, v]) => ({ market, paid: formatAmount(v) })),
        };
        // the PnL of every position ever held, closed ones included (the rows list held tokens only)
        let pnl: { realized: string; unrealized: string; fees: string; total: string } | null = null;
        try {
          const p = await s.data.userPnl(addr);
          pnl = { realized: p.realizedPnl, unrealized: p.unrealizedPnl, fees: p.fees, total: p.totalPnl };
        } catch {
          /* a venue without the PnL route: no PnL line */
        }
        if (o.json)
          printJson({
            source: 'venue',
            address: displayAddress(addr),
            count: rows.length,
            positions: rows,
            pnl,
            rewards,
          });
        else {
          process.stderr.write(
            `mmkit: ${rows.length} position(s) of ${displayAddress(addr)} at ${s.venue.base ?? s.venue.urls.data}\n`,
          );
          if (rows.length)
            printTable(
              rows.map((r) => ({ ...r, title: shortTitle(r.title) })),
              TABLE_COLUMNS,
            );
          if (pnl !== null)
            process.stderr.write(
              `mmkit: PnL (USDC, the venue's, every position ever held, closed ones included): realized ${pnl.realized} + unrealized ${pnl.unrealized} = ${pnl.total} (fees ${pnl.fees})\n`,
            );
          process.stderr.write(
            `mmkit: liquidity rewards paid to ${displayAddress(addr)}: ${rewards.paid} USDC over ${rewards.byMarket.length} market(s) (apart from the positions' PnL)\n`,
          );
        }
      });
    }),
  );
}
