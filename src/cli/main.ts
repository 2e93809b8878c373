/**
 * The `mmkit` command.
 */
import { Command, InvalidArgumentError } from 'commander';
import { pino } from 'pino';
import { parseAmount } from '../core/units.ts';
import { startExchange } from '../exchange/server.ts';

function intArg(name: string, min: number, max: number) {
  return (v: string): number => {
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) throw new InvalidArgumentError(`${name} must be an integer in [${min}, ${max}]`);
    return Number(v);
  };
}

function fundArg(v: string, prev: Array<{ address: string; micro: number }> = []) {
  const m = /^(0x[0-9a-fA-F]{40})=(\d+(?:\.\d{1,6})?)$/.exec(v);
  if (!m) throw new InvalidArgumentError('--fund takes ADDRESS=AMOUNT, e.g. 0xabc...=5000');
  return [...prev, { address: (m[1] as string).toLowerCase(), micro: parseAmount(m[2] as string) }];
}

const program = new Command();
program.name('mmkit').description('Market-making framework for prediction-market order books').version('0.1.0');

program
  .command('exchange')
  .description('run the paper exchange (the whole service on loopback)')
  .option('--port <n>', 'port to listen on (0 picks a free one)', intArg('--port', 0, 65535), 8080)
  .option('--host <host>', 'address to bind', '127.0.0.1')
  .option('--seed <n>', 'seed of the market world', intArg('--seed', 0, 2 ** 31), 1)
  .option('--json', 'print the base URLs as one JSON line and log JSON')
  .option('--fund <address=amount>', 'credit collateral to an address at start (repeatable)', fundArg, [])
  .option('--starting-balance <amount>', 'collateral an address receives with its first API key', '10000')
  .option('--chain-id <n>', 'chain id of signed orders and L1 auth', intArg('--chain-id', 1, 2 ** 31), 137)
  .option('--admin-token <token>', 'enable the /admin routes, authenticated by X-Admin-Token (env MMKIT_ADMIN_TOKEN)')
  .option('--no-rate-limits', 'turn off the rate limits of spec section 8')
  .option('--rate-limit-scale <x>', 'multiply every rate limit by x', '1')
  .option('--log-level <level>', 'log level (fatal..trace, silent)', 'info')
  .action(async (o) => {
    let starting: number;
    try {
      starting = parseAmount(o.startingBalance);
    } catch {
      throw new InvalidArgumentError('--starting-balance must be a decimal amount');
    }
    const scale = Number(o.rateLimitScale);
    if (!(scale > 0)) throw new InvalidArgumentError('--rate-limit-scale must be > 0');
    const logger = pino({
      level: o.logLevel,
      redact: { paths: ['req.headers.poly_passphrase', 'req.headers.poly_signature', 'req.headers.authorization', '*.secret', '*.passphrase'], censor: '[redacted]' },
    });
    const adminToken: string | undefined = o.adminToken ?? process.env.MMKIT_ADMIN_TOKEN;
    const running = await startExchange({
      host: o.host,
      port: o.port,
      seed: o.seed,
      fund: o.fund,
      logger,
      exchange: { startingCollateral: starting, chainId: o.chainId },
      http: { adminToken, rateLimits: { enabled: o.rateLimits !== false, scale, queueMs: 500 } },
    });
    // handlers first: a supervisor may signal as soon as it reads the URLs
    let stopping = false;
    const stop = (sig: string) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal: sig }, 'stopping');
      running.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
    if (o.json) process.stdout.write(JSON.stringify(running.urls) + '\n');
    else {
      process.stdout.write(`mmkit paper exchange listening (seed ${o.seed}, chain ${o.chainId})\n`);
      for (const [k, v] of Object.entries(running.urls)) process.stdout.write(`  ${k.padEnd(15)} ${v}\n`);
    }
  });

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`mmkit: ${(err as Error).message}\n`);
  process.exit(1);
});
