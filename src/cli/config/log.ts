/** The `log.*` section of the configuration: log level and format. */
export const logSchema = {
  level: {
    doc: 'Log level of the daemon and the commands (pino levels).',
    format: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    default: 'info',
    env: 'MMKIT_LOG_LEVEL',
  },
  format: {
    doc: 'Log format on stderr: pretty (a compact view for a person: one status line per period, fills by question and outcome), json (JSON lines, for log shippers), or auto (pretty on a terminal, JSON otherwise). Colours only on a terminal, never with NO_COLOR.',
    format: ['auto', 'pretty', 'json'],
    default: 'auto',
    env: 'MMKIT_LOG_FORMAT',
  },
  pretty: {
    doc: 'Alias of log.format, kept for older configs (used when log.format is auto): true = pretty, false = json, auto.',
    format: ['auto', 'true', 'false'],
    default: 'auto',
    env: 'MMKIT_LOG_PRETTY',
  },
};

export type LogConfig = { level: string; format: 'auto' | 'pretty' | 'json'; pretty: 'auto' | 'true' | 'false' };
