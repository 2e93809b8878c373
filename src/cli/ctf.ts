/**
 * `mmkit split`, `mmkit merge`, `mmkit redeem`: operations on a market's conditional tokens through
 * the venue's relayer (`{relayer_url}/submit`; the paper exchange serves one, a live venue needs
 * `venue.relayerUrl`).
 *
 *  - split <market> <amount>: `amount` collateral becomes `amount` YES + `amount` NO;
 *  - merge <market> <amount|all>: as many YES + NO become collateral again (`all`: the smaller free
 *    holding of the two);
 *  - redeem <market> [amount]: a resolved market's tokens are paid out (1 per winning share, 0 per
 *    losing one); without an amount, everything held.
 *
 * The operation is recorded in the daemon's store (its ledger) when the store's current epoch is
 * this venue's and account and no daemon is running on the data dir; with a daemon running, its
 * position audit records the change (cause split / merge / redeem, from the venue's activity).
 * Split and merge move no total PnL (legs at the YES mid p and the NO side at 1 − p), though the
 * average price and the realized / unrealized split do move; redeem realises it.
 *
 * Given a data dir and no venue (findings-8 F4), they act as its account on the venue it last traded
 * on, as `mmkit orders` / `cancel-all` / `positions` do (data-dir-wallet.ts, data-dir-venue.ts): a
 * daemon stopped cleanly leaves no venue.json, and the default paper exchange address (127.0.0.1:8080)
 * is not where its collateral and tokens are. --exchange-url still wins.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { RelayerTransaction } from '../api/relayer.ts';
import type { ConditionId, TokenId } from '../core/ids.ts';
import { formatAmount, parseAmount, PRICE_SCALE, type Micro } from '../core/units.ts';
import { action, addCommonOptions, configFrom, note, printJson, withSession, type CommonOptions } from './common.ts';
import { venueCommandConfig } from './data-dir-venue.ts';
import { dataDirAccount } from './data-dir-wallet.ts';
import { CliError, EXIT_CODES_HELP, ExitCode, usageError } from './exit-codes.ts';
import { displayAddress } from '../ops/address-display.ts';

type Kind = 'split' | 'merge' | 'redeem';

const HELP: Record<Kind, { args: string; description: string; examples: string }> = {
  split: {
    args: '<market> <amount>',
    description:
      "split collateral into YES + NO of a market through the venue's relayer (amount in shares = collateral)",
    examples: '  mmkit split 0x5f1c... 25\n  mmkit split 0x5f1c... 10.5 --json',
  },
  merge: {
    args: '<market> <amount>',
    description:
      "merge YES + NO of a market back into collateral through the venue's relayer (amount in shares, or all)",
    examples: '  mmkit merge 0x5f1c... 25\n  mmkit merge 0x5f1c... all',
  },
  redeem: {
    args: '<market> [amount]',
    description:
      "redeem a resolved market's tokens through the venue's relayer (1 per winning share; default: everything held)",
    examples: '  mmkit redeem 0x5f1c...\n  mmkit redeem 0x5f1c... 10 --json',
  },
};

const CID = /^0x[0-9a-fA-F]{1,64}$/;

export function register(program: Command): void {
  for (const kind of ['split', 'merge', 'redeem'] as const) {
    const h = HELP[kind];
    const cmd = program.command(`${kind} ${h.args}`).description(h.description);
    addCommonOptions(cmd, { wallet: true });
    cmd.option('--store-file <file>', 'the SQLite store to record it in (default <dataDir>/mmkit.db) [bot.storeFile]');
    cmd.addHelpText(
      'after',
      `
Amounts are decimal strings (at most 6 decimals). The operation is recorded in the daemon's store
when no daemon runs on the data dir (a running daemon's position audit records it instead).
Without --exchange-url (or venue.*Url), the venue is the one the data dir last traded on (said on stderr).

Examples:
${h.examples}
${EXIT_CODES_HELP}`,
    );
    cmd.action(
      action(async (market: string, amountArg: string | undefined, o: CommonOptions & { storeFile?: string }) => {
        if (!CID.test(market)) throw usageError(`market: expected a condition id (0x + hex), got ${market}`);
        let amount: Micro | undefined;
        if (amountArg !== undefined && !(kind === 'merge' && amountArg === 'all')) {
          try {
            amount = parseAmount(amountArg);
          } catch {
            throw usageError(`amount: expected a decimal number of shares (at most 6 decimals), got ${amountArg}`);
          }
          if (amount <= 0) throw usageError(`amount: must be positive, got ${amountArg}`);
        }
        // the data dir's account on the venue it last traded on (see the module comment)
        const acct = await dataDirAccount(
          configFrom(o, { 'bot.storeFile': o.storeFile }),
          { configGiven: o.config !== undefined },
          note,
        );
        // (a recorded daemon config loaded by dataDirAccount keeps --store-file)
        const acfg = o.storeFile ? { ...acct.cfg, bot: { ...acct.cfg.bot, storeFile: o.storeFile } } : acct.cfg;
        const { cfg, ended, venue } = await venueCommandConfig(acfg, note);
        if (ended !== undefined)
          throw new CliError(
            `${ended}: there is nothing to ${kind} there; pass --exchange-url to ask another venue`,
            ExitCode.FAILURE,
          );
        return withSession(cfg, { auth: true, json: o.json, venue }, async (s) => {
          if (s.venue.urls.relayer === undefined)
            throw usageError('no relayer known for this venue: set venue.relayerUrl (MMKIT_RELAYER_URL)');
          const { RelayerClient } = await import('../api/relayer.ts');
          // a proxy / Safe wallet (venue.funder): the funder's balances, as its orders' (README "The funder")
          const funder = cfg.venue.funder ? cfg.venue.funder.toLowerCase() : undefined;
          const relayer = new RelayerClient(s.transport, funder !== undefined ? { proxyWallet: funder } : {});
          const m = await s.clob.market(market);
          const [yes, no] = m.tokens;
          if (yes === undefined || no === undefined) throw usageError(`market ${market} has no two tokens`);
          let t: RelayerTransaction;
          if (kind === 'split') t = await relayer.split(m.conditionId, amount!);
          else if (kind === 'merge') {
            if (amount === undefined) {
              const b = await s.clob.balances(funder !== undefined ? { makerAddress: funder } : {});
              const free = (id: string) => b.tokens.find((x) => x.assetId === id)?.available ?? 0;
              amount = Math.min(free(yes.tokenId), free(no.tokenId)) as Micro;
              if (amount <= 0)
                throw usageError(`nothing to merge: the wallet does not hold both tokens of ${market} free`);
            }
            t = await relayer.merge(m.conditionId, amount);
          } else t = await relayer.redeem(m.conditionId, amount);

          // the legs, priced as the ledger wants them (see the module comment)
          let p = PRICE_SCALE / 2;
          if (kind !== 'redeem')
            try {
              p = Math.round(await s.clob.midpoint(yes.tokenId));
            } catch {
              /* no two-sided book: 0.5 */
            }
          const winner = m.tokens.find((x) => x.winner)?.tokenId;
          const legs = t.tokens
            .filter((x) => x.delta !== 0)
            .map((x) => ({
              tokenId: x.tokenId as TokenId,
              size: x.delta,
              price:
                kind === 'redeem'
                  ? x.tokenId === winner
                    ? PRICE_SCALE
                    : 0
                  : x.tokenId === yes.tokenId
                    ? p
                    : PRICE_SCALE - p,
            }));
          const recorded = await recordInStore(
            cfg.bot.storeFile || join(cfg.bot.dataDir, 'mmkit.db'),
            cfg.bot.dataDir,
            {
              // the name the daemon's live venue gives its epochs (src/venues/live/live-venue.ts)
              venue: `${s.venue.urls.clob.replace(/\/+$/, '')}#${cfg.bot.chainId}`,
              address: displayAddress(s.address ?? ''),
              world: (await s.clob.world().catch(() => undefined))?.worldId ?? null,
              op: {
                kind,
                market: m.conditionId as ConditionId,
                amount: t.amount,
                collateral: t.collateralDelta,
                legs,
                tx: t.id,
                ...(t.hash !== '' ? { txHash: t.hash } : {}),
              },
            },
          );
          const out = {
            type: kind,
            market: m.conditionId,
            transaction: t.id,
            // the on-chain hash the venue's account activity names it by (null until the venue gives one)
            transactionHash: t.hash === '' ? null : t.hash,
            state: t.state,
            amount: formatAmount(t.amount),
            collateralDelta: formatAmount(t.collateralDelta),
            tokens: t.tokens.map((x) => ({
              tokenId: x.tokenId,
              outcome: m.tokens.find((y) => y.tokenId === x.tokenId)?.outcome ?? '',
              delta: formatAmount(x.delta),
            })),
            recorded,
          };
          if (o.json) printJson(out);
          else {
            process.stdout.write(
              `${kind} ${out.amount} of ${m.conditionId}: collateral ${out.collateralDelta}, ${out.tokens
                .map((x) => `${x.outcome || x.tokenId.slice(0, 10)} ${x.delta}`)
                .join(', ')} (transaction ${t.id}${t.hash !== '' && t.hash !== t.id ? `, hash ${t.hash}` : ''})\n`,
            );
            if (recorded !== 'recorded') note(`not recorded in the store: ${recorded}`);
          }
        });
      }),
    );
  }
}

/**
 * Records the operation in the store's current epoch when it is this venue's and account's and no
 * daemon holds the data dir. Returns 'recorded' or why not.
 */
async function recordInStore(
  file: string,
  dataDir: string,
  o: {
    venue: string;
    address: string;
    world: string | null;
    op: Parameters<import('../store/store-types.ts').Store['recordOperation']>[0];
  },
): Promise<string> {
  if (!existsSync(file)) return `no store at ${file}`;
  const { inspectDaemonLock } = await import('../ops/daemon-lock.ts');
  const lock = inspectDaemonLock(dataDir);
  if (lock.state === 'live' || lock.state === 'foreign')
    return 'a daemon runs on this data dir: its position audit records the change';
  const { openStore } = await import('../store/store.ts');
  const store = openStore(file, { checkpoint: 'auto' });
  try {
    const e = store.currentEpoch();
    if (
      e === undefined ||
      e.world !== o.world ||
      e.address.toLowerCase() !== o.address.toLowerCase() ||
      e.venue !== o.venue
    )
      return "the store's current epoch is another venue, world or account (the next start reconciles)";
    store.recordOperation(o.op);
    return 'recorded';
  } finally {
    store.close();
  }
}
