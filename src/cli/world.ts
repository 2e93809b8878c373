/**
 * `mmkit world facts`: run the paper exchange's world alone in virtual time and print its stylized
 * facts (src/exchange/world/facts.ts): spreads, trade sizes, volatility, the informed share of
 * volume, news jumps, and the markouts of every maker fill and of a probe quoting at the touch.
 *
 *   mmkit world facts [--profile calm|realistic|toxic] [--seed N] [--hours H] [--json]
 */
import { InvalidArgumentError, type Command } from 'commander';
import { action, printJson } from './common.ts';
import { EXIT_CODES_HELP } from './exit-codes.ts';

interface FactsCliOptions {
  config?: string;
  profile?: string;
  seed: number;
  hours: number;
  json?: boolean;
}

function hoursArg(v: string): number {
  const h = Number(v);
  if (!/^\d+(\.\d+)?$/.test(v) || !(h > 0) || h > 168)
    throw new InvalidArgumentError('--hours takes a number of hours in (0, 168], e.g. 2 or 0.5');
  return h;
}

function seedArg(v: string): number {
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v)))
    throw new InvalidArgumentError('--seed takes a non-negative integer');
  return Number(v);
}

const fmt = (x: number | null, d = 4): string => (x === null ? '-' : x.toFixed(d));
const signed = (x: number | null): string => (x === null ? '-' : `${x >= 0 ? '+' : ''}${x.toFixed(4)}`);
const pct = (x: number | null): string => (x === null ? '-' : `${(x * 100).toFixed(1)} %`);

export function register(program: Command): void {
  const world = program.command('world').description("the paper exchange's synthetic world");
  world.addHelpText(
    'after',
    `
Examples:
  mmkit world facts --profile realistic --hours 2      # the world's stylized facts, in virtual time
  mmkit world facts --profile toxic --seed 3 --json
  mmkit backtest --world 3 --world-profile toxic --duration 1h --strategy bands   # trade in it
${EXIT_CODES_HELP}`,
  );
  world
    .command('facts')
    .description('run the world alone in virtual time and print its stylized facts (spreads, sizes, markouts)')
    .option('--config <file>', 'JSON config file merged over config/default.json')
    .option('--profile <name>', 'world profile: calm | realistic | toxic [exchange.worldProfile]')
    .option('--seed <n>', 'world seed', seedArg, 1)
    .option('--hours <h>', 'virtual hours measured (after 2 minutes of warm-up)', hoursArg, 2)
    .option('--json', 'print one JSON document on stdout')
    .addHelpText(
      'after',
      `
Markouts are in price units, size-weighted, positive when the YES mid moved the maker's way after
the fill (mid - price for a buy of YES, the reverse for a sell). The probe keeps one small bid and
one small ask at the touch of every active market; probePickedOffAfterJumps is the share of its
filled size that came within 1 s after a news jump of its market.

Examples:
  mmkit world facts --profile realistic --hours 2
  mmkit world facts --profile calm --seed 3 --json | jq .probeMarkout60s
${EXIT_CODES_HELP}`,
    )
    .action(
      action(async (o: FactsCliOptions) => {
        const [{ loadConfig }, { measureWorld }] = await Promise.all([
          import('./config.ts'),
          import('../exchange/world/facts.ts'),
        ]);
        const cfg = loadConfig(o.config, { 'exchange.worldProfile': o.profile });
        const f = measureWorld({ profile: cfg.exchange.worldProfile, seed: o.seed, hours: o.hours });
        if (o.json) return printJson(f);
        const rows: Array<[string, string]> = [
          ['profile', `${f.profile} (seed ${f.seed}, ${f.hours} virtual h, ${f.markets.toFixed(1)} active markets)`],
          ['trades', `${f.trades} (${Math.round(f.volume)} shares)`],
          [
            'spread (YES book)',
            `p10 ${fmt(f.spread.p10)}  median ${fmt(f.spread.p50)}  p90 ${fmt(f.spread.p90)}  mean ${fmt(f.spread.mean)}`,
          ],
          ...f.spreadByPrice.map((b): [string, string] => [
            `  mid in ${b.range}`,
            b.n === 0 ? '-' : `median ${fmt(b.p50)}  mean ${fmt(b.mean)}  (${b.n} samples)`,
          ]),
          [
            'trade size (shares)',
            `p10 ${fmt(f.tradeSize.p10, 0)}  median ${fmt(f.tradeSize.p50, 0)}  p90 ${fmt(f.tradeSize.p90, 0)}  mean ${fmt(f.tradeSize.mean, 1)}`,
          ],
          ['volatility', `${fmt(f.volatility1m)} per minute (std of 1-minute mid changes)`],
          ['informed volume', `${pct(f.informedShare)} informed, ${pct(f.fastShare)} fast traders`],
          ['volume in last hour', pct(f.volumeLastHourShare)],
          ['news jumps', `${f.newsJumps} (mean move ${fmt(f.newsMoveMean)})`],
          [
            'maker markouts',
            `+1s ${signed(f.makerMarkout1s)}  +10s ${signed(f.makerMarkout10s)}  +60s ${signed(f.makerMarkout60s)}  (${f.makerFills} fills)`,
          ],
          [
            'probe markouts',
            `+1s ${signed(f.probeMarkout1s)}  +10s ${signed(f.probeMarkout10s)}  +60s ${signed(f.probeMarkout60s)}  (${f.probeFills} fills, ${Math.round(f.probeVolume)} shares)`,
          ],
          ['probe picked off', `${pct(f.probePickedOffAfterJumps)} of its filled size within 1 s after a jump`],
        ];
        const w = Math.max(...rows.map((r) => r[0].length));
        for (const [k, v] of rows) process.stdout.write(`${k.padEnd(w)}  ${v}\n`);
      }),
    );
}
