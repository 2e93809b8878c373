/**
 * `mmkit cancel-all`: cancel every open order of the wallet at the venue (DELETE /cancel-all, or
 * DELETE /cancel-market-orders with --market), then verify by listing what is still open. The
 * emergency brake from a second terminal; a running daemon would re-quote, so stop it first
 * (`mmkit kill`) or use this after it died: then, without --exchange-url, at the venue the data dir
 * last traded on (data-dir-venue.ts), where its orders rest, not at the default paper exchange. When
 * that was the daemon's in-process paper exchange, nothing rests: it ended with the daemon (exit 0).
 * Without a wallet given, the account is the one the data dir records (data-dir-wallet.ts). With a
 * funder (venue.funder: a proxy / Safe wallet), only the funder account's orders, by id: the venue's
 * cancel-all is per API key and reaches every account the key signs for; the same for the wallet's own
 * account when the key has open orders of another (a funder it signs for). `--all-accounts` asks for
 * the key's cancel-all and verifies every account's orders gone.
 */
import type { Command } from 'commander';
import { CANCEL_CHUNK_IDS } from '../core/signer-limits.ts';
import { action, addCommonOptions, configFrom, note, printJson, withSession, type CommonOptions } from './common.ts';
import { venueCommandConfig } from './data-dir-venue.ts';
import { dataDirAccount, otherAccountNote } from './data-dir-wallet.ts';
import { EXIT_CODES_HELP, ExitCode } from './exit-codes.ts';
import { orderRow, shown } from './orders.ts';
import { terminalSafe } from '../ops/terminal/safe-text.ts';
import { describeHolder, inspectDaemonLock } from '../ops/daemon-lock.ts';

interface CancelAllOptions extends CommonOptions {
  market?: string;
  allAccounts?: boolean;
}

export function register(program: Command): void {
  const cmd = program
    .command('cancel-all')
    .description('cancel every open order of the wallet at the venue, then verify none is left')
    .option('--market <conditionId>', 'only the orders of this market')
    .option(
      '--all-accounts',
      "with venue.funder: every account the API key trades for (the signer's own too), not only the funder's",
    );
  addCommonOptions(cmd, { wallet: true });
  cmd.addHelpText(
    'after',
    `
Exit code 0 when no order of the wallet (in --market, if given) is left open afterwards; 1 otherwise
(the orders still open are listed). With venue.funder (a proxy / Safe wallet) the account is the
funder's: its orders are cancelled by id, and the signer's own orders and those of the key's other
accounts (the same API key) rest unless --all-accounts is given (the venue's cancel-all of the key).

Examples:
  mmkit cancel-all
  mmkit cancel-all --market 0x5f1c... --json
  MMKIT_KEYSTORE_PASSWORD=... mmkit cancel-all --config my-live.json
${EXIT_CODES_HELP}`,
  );
  cmd.action(
    action(async (o: CancelAllOptions) => {
      // the data dir's account, never a new paper wallet's (data-dir-wallet.ts)
      const acct = await dataDirAccount(configFrom(o), { configGiven: o.config !== undefined }, note);
      const { cfg, ended, venue } = await venueCommandConfig(acct.cfg, note);
      if (ended !== undefined) {
        note(`${ended}: nothing rests there to cancel; pass --exchange-url to ask another venue`);
        if (o.json) printJson({ canceled: [], notCanceled: {}, open: 0, openOrders: [] });
        else process.stdout.write('canceled 0 order(s); 0 open now\n');
        return ExitCode.OK;
      }
      return withSession(cfg, { auth: true, json: o.json, venue }, async (s) => {
        const other = otherAccountNote(cfg.bot.dataDir, acct.recorded, s.address ?? '');
        if (other !== undefined) note(other);
        // the account's orders only, by id, when the API key reaches other accounts: the venue's cancel-all
        // is per key and would take them too (with a funder, the EOA's own and another daemon's funder's;
        // for the EOA, the orders of a funder it signs for). Else (or --all-accounts) the venue's cancel-all
        const scoped = s.address !== undefined && o.allAccounts !== true;
        const mine = (x: { makerAddress: string }) => !scoped || x.makerAddress === '' || x.makerAddress === s.address;
        const filter = o.market ? { market: o.market } : {};
        let r: { canceled: string[]; notCanceled: Record<string, string> };
        let byId = scoped && cfg.venue.funder !== '';
        const ids: string[] = [];
        if (scoped)
          for await (const x of s.clob.openOrdersAll(filter)) {
            if (mine(x)) ids.push(x.id);
            else byId = true;
          }
        if (byId) {
          r = { canceled: [], notCanceled: {} };
          for (let i = 0; i < ids.length; i += CANCEL_CHUNK_IDS) {
            const c = await s.clob.cancelOrders(ids.slice(i, i + CANCEL_CHUNK_IDS));
            r.canceled.push(...c.canceled);
            Object.assign(r.notCanceled, c.notCanceled);
          }
        } else r = o.market ? await s.clob.cancelMarketOrders({ market: o.market }) : await s.clob.cancelAll();
        const left = [];
        let others = 0;
        for await (const x of s.clob.openOrdersAll(filter)) {
          if (mine(x)) left.push(orderRow(x));
          else others++;
        }
        if (others > 0)
          note(
            `${others} open order(s) of the API key's other accounts (not ${shown(s.address)}'s) left resting: --all-accounts cancels them too`,
          );
        if (o.json)
          printJson({
            address: shown(s.address),
            canceled: r.canceled,
            notCanceled: r.notCanceled,
            open: left.length,
            openOrders: left,
          });
        else {
          process.stdout.write(
            `canceled ${r.canceled.length} order(s) of ${shown(s.address)}; ${left.length} open now\n`,
          );
          // the venue's reason: spelt out safe for the terminal
          for (const [id, why] of Object.entries(r.notCanceled))
            process.stdout.write(`not canceled  ${id}: ${terminalSafe(why)}\n`);
          for (const x of left)
            process.stdout.write(`still open    ${terminalSafe(`${x.id} ${x.side} ${x.size}@${x.price}`)}\n`);
        }
        // a daemon of this data dir quotes again at its next intent (trial 13 F4: "0 open now", then
        // its orders were back): said, with the way to stop it
        const lock = inspectDaemonLock(cfg.bot.dataDir);
        if (lock.state === 'live')
          note(
            `a daemon runs on this data dir (${describeHolder(lock.holder)}) and will quote again: \`mmkit kill --data-dir ${cfg.bot.dataDir}\` stops it (cancelling its orders)`,
          );
        // a fleet's members on other data dirs (and machines) quote again too (trial 14 F9)
        if (cfg.fleet?.redisUrl !== undefined && cfg.fleet.redisUrl !== '')
          note(
            `fleet.redisUrl is set: the account's fleet members (on any machine) will quote again; \`mmkit kill --fleet\` stops them all (\`mmkit fleet status\` lists them)`,
          );
        return left.length === 0 ? ExitCode.OK : ExitCode.FAILURE;
      });
    }),
  );
}
