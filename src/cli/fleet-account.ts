/**
 * The account of the fleet an operator command (`mmkit fleet status`, `mmkit kill --fleet`) acts on:
 * `--account <address>`, else `venue.funder` when one is configured (a proxy / Safe wallet: the
 * account the members trade and join the fleet as, README "The funder"), else the configured
 * wallet's (as `mmkit orders` finds it; a paper daemon's wallet in its data dir). An operator's
 * machine usually has no wallet at all, so a wallet that
 * cannot be found says to name the fleet with `--account` (findings 2 F11).
 */
import { ConfigError } from '../core/errors.ts';

/**
 * The fleet's account (see the module comment). `funder`: venue.funder ('' = none).
 * @throws ConfigError when no --account is given and no wallet is configured or found (the hint names --account)
 */
export async function fleetAccount(
  account: string | undefined,
  cfg: { keystoreFile: string; dataDir: string },
  env: NodeJS.ProcessEnv,
  funder = '',
): Promise<string> {
  if (account !== undefined) return account;
  if (funder !== '') return funder.toLowerCase();
  const { resolveWallet } = await import('./wallet.ts');
  try {
    const w = await resolveWallet({
      keystoreFile: cfg.keystoreFile,
      dataDir: cfg.dataDir,
      allowPaper: true,
      createPaper: false,
      env,
    });
    return w.wallet.address;
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    const first = e.problems[0]!;
    throw new ConfigError(
      first.key,
      `${first.message}; on a machine without the fleet's wallet, give the fleet's address with --account 0x…`,
      { cause: e },
    );
  }
}
