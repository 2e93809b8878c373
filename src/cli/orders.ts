/**
 * `mmkit orders`: the wallet's open orders at the venue (GET /data/orders, every page), and
 * `mmkit orders cancel ID...` (DELETE /orders). The wallet is the daemon's (wallet.ts), so a second
 * terminal sees and cancels what a running `mmkit run` placed; that daemon re-quotes on its next
 * cycle, so stop it first (`mmkit kill`) to pull quotes for good. Without --exchange-url and a
 * running daemon, the venue is the one the data dir last traded on (data-dir-venue.ts): after a crash
 * the orders it may have left are listed where they rest, not at the default paper exchange. When that
 * was the daemon's in-process paper exchange, nothing rests: it ended with the daemon (nothing is asked).
 * Without a wallet given, the account is the one the data dir records (its daemon's config or keystore,
 * data-dir-wallet.ts), never a paper wallet of another address.
 */
import type { Command } from 'commander';
import type { OpenOrder } from '../api/clob.ts';
import { formatAmount, formatPrice } from '../core/units.ts';
import {
  action,
  addCommonOptions,
  configFrom,
  note,
  printJson,
  printTable,
  withSession,
  type CommonOptions,
} from './common.ts';
import { venueCommandConfig } from './data-dir-venue.ts';
import { dataDirAccount, otherAccountNote } from './data-dir-wallet.ts';
import { EXIT_CODES_HELP, ExitCode, usageError } from './exit-codes.ts';
import { displayAddress } from '../ops/address-display.ts';
import { terminalSafe } from '../ops/terminal/safe-text.ts';

/** An account address as every command prints it: EIP-55 checksummed (as the daemon's log and status). */
export const shown = (address: string | undefined): string | undefined =>
  address === undefined ? undefined : displayAddress(address);

/** An open order for output: decimal strings, unix-second times. */
export function orderRow(o: OpenOrder) {
  return {
    id: o.id,
    market: o.market,
    tokenId: o.assetId,
    outcome: o.outcome,
    side: o.side,
    price: formatPrice(o.price),
    size: formatAmount(o.originalSize),
    matched: formatAmount(o.sizeMatched),
    remaining: formatAmount(o.originalSize - o.sizeMatched),
    status: o.status,
    type: o.orderType,
    createdAt: o.createdAt ?? null,
    expiration: o.expiration,
  };
}

interface ListOptions extends CommonOptions {
  market?: string;
  token?: string;
}

const ID_RE = /^0x[0-9a-fA-F]{64}$/;

export function register(program: Command): void {
  const orders = program
    .command('orders')
    .description("list the wallet's open orders at the venue (`orders cancel ID...` cancels some)");
  // listing is the default subcommand, so `mmkit orders --json` works and the parent has no
  // options of its own that would swallow those of `orders cancel`
  orders.addHelpText(
    'after',
    `
Examples:
  mmkit orders                       # = mmkit orders list
  mmkit orders --json
  mmkit orders cancel 0xabc... 0xdef...
${EXIT_CODES_HELP}`,
  );
  const list = orders
    .command('list', { isDefault: true })
    .description("list the wallet's open orders at the venue (the default of `mmkit orders`)");
  list.option('--market <conditionId>', 'only this market').option('--token <tokenId>', 'only this token');
  addCommonOptions(list, { wallet: true });
  list.addHelpText(
    'after',
    `
The wallet: bot.keystoreFile / MMKIT_PRIVATE_KEY, else the account the data dir records (the config
and keystore its daemon ran with, in <dataDir>/venue.json), else the paper wallet in
<dataDir>/paper-wallet.key (the daemon's, so this lists what a running \`mmkit run\` placed); never a
paper wallet of another account than the one recorded (refused, exit 2). Prices and sizes are decimal strings.

Examples:
  mmkit orders
  mmkit orders --market 0x5f1c... --json | jq '.orders | length'
  mmkit orders cancel 0xabc... 0xdef...
${EXIT_CODES_HELP}`,
  );
  list.action(
    action(async (o: ListOptions) => {
      // the data dir's account, never a new paper wallet's (data-dir-wallet.ts)
      const acct = await dataDirAccount(configFrom(o), { configGiven: o.config !== undefined }, note);
      const { cfg, ended, venue } = await venueCommandConfig(acct.cfg, note);
      if (ended !== undefined) {
        note(`${ended}: no order of it rests anywhere; pass --exchange-url to ask another venue`);
        if (o.json) printJson({ count: 0, orders: [] });
        return;
      }
      return withSession(cfg, { auth: true, json: o.json, venue }, async (s) => {
        const other = otherAccountNote(cfg.bot.dataDir, acct.recorded, s.address ?? '');
        if (other !== undefined) note(other);
        const list: OpenOrder[] = [];
        // the key's orders of every account it trades for: the account's are those it is the maker of
        // (with venue.funder, not the wallet's own orders: README "The funder")
        for await (const x of s.clob.openOrdersAll({
          ...(o.market ? { market: o.market } : {}),
          ...(o.token ? { assetId: o.token } : {}),
        }))
          if (x.makerAddress === '' || s.address === undefined || x.makerAddress === s.address) list.push(x);
        const rows = list.map(orderRow);
        if (o.json) {
          printJson({ address: shown(s.address), count: rows.length, orders: rows });
          return;
        }
        process.stderr.write(
          `mmkit: ${rows.length} open order(s) of ${shown(s.address)} at ${s.venue.base ?? s.venue.urls.clob}\n`,
        );
        if (rows.length > 0)
          printTable(rows, ['id', 'market', 'outcome', 'side', 'price', 'size', 'matched', 'status']);
      });
    }),
  );

  const cancel = orders
    .command('cancel')
    .description('cancel orders of the wallet by id')
    .argument('<ids...>', 'order ids (0x + 64 hex)');
  addCommonOptions(cancel, { wallet: true });
  cancel.addHelpText(
    'after',
    `
Exit code 0 when every id was cancelled; 1 when some were not (unknown, not yours, or already
filled or cancelled: the reason is printed).

Examples:
  mmkit orders cancel 0x3b0e...
  mmkit orders cancel --json $(mmkit orders --json | jq -r '.orders[] | select(.side=="BUY") | .id')
${EXIT_CODES_HELP}`,
  );
  cancel.action(
    action(async (ids: string[], o: CommonOptions) => {
      const bad = ids.filter((id) => !ID_RE.test(id));
      if (bad.length > 0)
        throw usageError(
          `not an order id (0x + 64 hex digits): ${bad.map((b) => JSON.stringify(b.slice(0, 70))).join(', ')}`,
        );
      const acct = await dataDirAccount(configFrom(o), { configGiven: o.config !== undefined }, note);
      const { cfg, ended, venue } = await venueCommandConfig(acct.cfg, note);
      if (ended !== undefined) {
        // not cancelled, as a venue answers for an order it no longer holds: the order ended with its exchange
        note(`${ended}; pass --exchange-url to ask another venue`);
        const why = 'the in-process paper exchange it rested on ended with its daemon';
        const notCanceled = Object.fromEntries(ids.map((id) => [id, why]));
        if (o.json) printJson({ canceled: [], notCanceled });
        else for (const id of ids) process.stdout.write(`not canceled  ${id}: ${why}\n`);
        return ExitCode.FAILURE;
      }
      return withSession(cfg, { auth: true, json: o.json, venue }, async (s) => {
        const other = otherAccountNote(cfg.bot.dataDir, acct.recorded, s.address ?? '');
        if (other !== undefined) note(other);
        const canceled: string[] = [];
        const notCanceled: Record<string, string> = {};
        // DELETE /orders takes many ids; keep each request small
        for (let i = 0; i < ids.length; i += 100) {
          const r = await s.clob.cancelOrders(ids.slice(i, i + 100));
          canceled.push(...r.canceled);
          Object.assign(notCanceled, r.notCanceled);
        }
        if (o.json) printJson({ canceled, notCanceled });
        else {
          for (const id of canceled) process.stdout.write(`canceled      ${id}\n`);
          // the venue's reason: spelt out safe for the terminal
          for (const [id, why] of Object.entries(notCanceled))
            process.stdout.write(`not canceled  ${id}: ${terminalSafe(why)}\n`);
        }
        return Object.keys(notCanceled).length === 0 ? ExitCode.OK : ExitCode.FAILURE;
      });
    }),
  );
}
