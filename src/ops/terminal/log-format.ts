/**
 * Which form the log takes: `pretty` (the terminal view, ./pretty-view.ts), `json` (pino's JSON
 * lines, for log shippers) or `auto` (pretty when the log goes to a terminal, JSON otherwise).
 * Config `log.format` / MMKIT_LOG_FORMAT / `--log-format`; the older `log.pretty` /
 * MMKIT_LOG_PRETTY (auto | true | false) is an alias, used when `log.format` is left at auto.
 */

/**
 * The component of the daemon's own lines (start, status, stop, summary) and of the kernel's: every
 * line names a component (README "Logs"); the terminal view does not print this one (it is implied).
 */
export const DAEMON_COMPONENT = 'daemon';

/** The log formats, as the config and the CLI take them. */
export const LOG_FORMATS = ['auto', 'pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The older `log.pretty` values. */
export type PrettyAlias = 'auto' | 'true' | 'false';

/**
 * The format a logger takes: `format` when it is pretty or json; else the alias `pretty` when it is
 * true or false; else pretty exactly when the destination is a terminal.
 */
export function resolveLogFormat(
  format: LogFormat | undefined,
  pretty: PrettyAlias | undefined,
  isTTY: boolean,
): 'pretty' | 'json' {
  if (format === 'pretty' || format === 'json') return format;
  if (pretty === 'true') return 'pretty';
  if (pretty === 'false') return 'json';
  return isTTY ? 'pretty' : 'json';
}

/** The format the config asks for: `log.format`, or the alias `log.pretty` when the format is auto. */
export function logFormatOf(log: { readonly format: LogFormat; readonly pretty: PrettyAlias }): LogFormat {
  if (log.format !== 'auto') return log.format;
  return log.pretty === 'true' ? 'pretty' : log.pretty === 'false' ? 'json' : 'auto';
}
