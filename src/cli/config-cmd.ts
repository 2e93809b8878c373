/**
 * `mmkit config`: `check` (validate a configuration as `mmkit run` would load it), `print` (the
 * resolved values, secrets redacted, with where each came from) and `docs` (the table of every key
 * for the README). Bare `mmkit config` prints the docs too, as it always did.
 */
import type { Command } from 'commander';
import { action, printJson } from './common.ts';
import { EXIT_CODES_HELP } from './exit-codes.ts';

// The work is in ./config-check.ts and ./config.ts, imported when a command runs: registering the
// commands must stay cheap (`mmkit --help` loads every command's registration).
export type { ConfigCheckReport, ConfigProblem } from './config-check.ts';

const checkModule = () => import('./config-check.ts');
const configModule = () => import('./config.ts');

export function register(program: Command): void {
  const config = program
    .command('config')
    .description('check, print or document the configuration (bare: print the documentation table)')
    .option('--check <file>', 'same as `mmkit config check --config FILE`')
    .addHelpText(
      'after',
      `
Precedence: schema defaults < config/default.json < --config FILE < MMKIT_* environment < flags.
Config files are JSON; keys starting with "//" or "_comment" are comments. Secrets (private key,
keystore password, API secret/passphrase, admin token) are accepted from the environment only.

Examples:
  mmkit config check --config config/live.example.json
  mmkit config print --config config/paper.json
  mmkit config print --json | jq .bot.risk
  mmkit config docs > docs/config.md
${EXIT_CODES_HELP}`,
    )
    .action(
      action(async (o: { check?: string }) => {
        if (o.check !== undefined) return (await checkModule()).runCheck({ config: o.check });
        process.stdout.write((await configModule()).describeConfig() + '\n');
      }),
    );

  config
    .command('docs')
    .description('print every configuration key: env variable, default, allowed values, meaning (markdown)')
    .option('--json', 'the keys as a JSON array')
    .addHelpText(
      'after',
      `
Examples:
  mmkit config docs > CONFIG.md                   # the table of README "Configuration"
  mmkit config docs --json | jq '.[] | select(.key | startswith("bot.risk"))'
${EXIT_CODES_HELP}`,
    )
    .action(
      action(async (o: { json?: boolean }) => {
        const { describeConfig, schemaLeaves } = await configModule();
        if (o.json)
          printJson(
            schemaLeaves().map((l) => ({
              key: l.key,
              env: l.env,
              default: l.sensitive ? '' : l.default,
              doc: l.doc,
              sensitive: l.sensitive,
            })),
          );
        else process.stdout.write(describeConfig() + '\n');
      }),
    );

  config
    .command('check')
    .description(
      'validate the configuration as `mmkit run` would load it (schema, risk limits, strategy and params, wallet source); never contacts the venue',
    )
    .option('--config <file>', 'JSON config file merged over config/default.json')
    .option('--json', 'print the report as JSON')
    .addHelpText(
      'after',
      `
Exit code 0 when valid; 2 with every problem listed, each naming its key.

Examples:
  mmkit config check --config config/live.example.json
  MMKIT_KEYSTORE_PASSWORD=... mmkit config check --config my-live.json --json
${EXIT_CODES_HELP}`,
    )
    .action(action(async (o: { config?: string; json?: boolean }) => (await checkModule()).runCheck(o)));

  config
    .command('print')
    .description('print the resolved configuration (secrets redacted) and where each value came from')
    .option('--config <file>', 'JSON config file merged over config/default.json')
    .option('--json', 'print the resolved configuration as one JSON object')
    .addHelpText(
      'after',
      `
Secrets that are set print as "[redacted]"; unset ones as "". A password inside a URL is masked.

Examples:
  mmkit config print --config config/paper.json
  MMKIT_LOG_LEVEL=debug mmkit config print --json | jq .log
${EXIT_CODES_HELP}`,
    )
    .action(
      action(async (o: { config?: string; json?: boolean }) => {
        const [{ loadConfigDetailed, redactConfig }, { flatValues }] = await Promise.all([
          configModule(),
          checkModule(),
        ]);
        const { config: cfg, sources } = loadConfigDetailed(o.config);
        const red = redactConfig(cfg);
        if (o.json) {
          printJson(red);
          return;
        }
        const rows = flatValues(red);
        const w = Math.max(...rows.map(([k]) => k.length));
        for (const [k, v] of rows)
          process.stdout.write(`${k.padEnd(w)}  ${JSON.stringify(v)}  (${sources[k] ?? 'default'})\n`);
      }),
    );
}
