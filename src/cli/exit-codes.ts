/**
 * The exit codes of every `mmkit` command, in one place (README "Exit codes"):
 *
 *   0  OK           the command did what it was asked
 *   1  FAILURE      it ran but failed (an order not cancelled, orders left open, a strategy that quoted nothing, a bug)
 *   2  USAGE        bad flags or arguments, or a bad configuration (the message names the key)
 *   3  UNREACHABLE  the venue could not be reached or is unavailable (connection refused, timeout, 5xx, 425/503)
 *   4  RISK_STOP    `mmkit run` only: the kill switch tripped on a risk event (loss limit, rejections,
 *                   heartbeat failures, a fill not stored, an invariant) and the daemon stopped itself
 *                   (src/cli/run-stop.ts)
 *
 * Scripts can rely on them; `--json` commands also print errors as one JSON line on stderr.
 */
import { CommanderError } from 'commander';
import { AuthError, ConfigError, MmkitError, NetworkError } from '../core/errors.ts';
import { terminalSafe } from '../ops/terminal/safe-text.ts';

export const ExitCode = {
  OK: 0,
  FAILURE: 1,
  USAGE: 2,
  UNREACHABLE: 3,
  RISK_STOP: 4,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** An error that carries its exit code (and, for scripts, a stable code word). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    readonly code: string = exitCode === ExitCode.USAGE
      ? 'USAGE'
      : exitCode === ExitCode.UNREACHABLE
        ? 'UNREACHABLE'
        : exitCode === ExitCode.RISK_STOP
          ? 'RISK_STOP'
          : 'FAILURE',
    opts?: { cause?: unknown },
  ) {
    super(message, opts);
    this.name = 'CliError';
  }
}

/** A usage or configuration error (exit 2). */
export function usageError(message: string): CliError {
  return new CliError(message, ExitCode.USAGE);
}

/** True for an error that means the venue did not answer usefully (network, timeout, 5xx, 425/503). */
export function isUnreachable(err: unknown): boolean {
  return err instanceof NetworkError;
}

/** The exit code an error maps to. */
export function exitCodeOf(err: unknown): ExitCode {
  if (err instanceof CliError) return err.exitCode;
  if (err instanceof CommanderError) return err.exitCode === 0 ? ExitCode.OK : ExitCode.USAGE;
  if (err instanceof ConfigError) return ExitCode.USAGE;
  if (isUnreachable(err)) return ExitCode.UNREACHABLE;
  return ExitCode.FAILURE;
}

/** The stable code word of an error (for `--json` error lines). */
export function errorCodeOf(err: unknown): string {
  if (err instanceof CliError) return err.code;
  if (err instanceof MmkitError) return err.code;
  if (err instanceof CommanderError) return 'USAGE';
  return 'FAILURE';
}

/**
 * Print an error the way every command does (stderr: `mmkit: message`, or with `json` one line
 * `{"error": {"code", "message", "exitCode", "key"?}}`) and return its exit code. Messages of the
 * error tree never carry secrets (src/core/errors.ts); stack traces are printed only for bugs
 * (not for config, network or venue errors) when MMKIT_DEBUG is set. A message may quote what a
 * venue answered: printed as text, its control characters are spelt out (terminalSafe; the lines
 * of a message of several keep their newlines).
 */
export function reportError(err: unknown, o: { json?: boolean } = {}): ExitCode {
  const code = exitCodeOf(err);
  const message = err instanceof Error ? err.message : String(err);
  if (o.json) {
    const key = err instanceof ConfigError ? { key: err.key, problems: err.problems } : {};
    process.stderr.write(JSON.stringify({ error: { code: errorCodeOf(err), message, exitCode: code, ...key } }) + '\n');
  } else {
    const hint = err instanceof AuthError ? ' (check the wallet and API credentials)' : '';
    if (err instanceof ConfigError && err.problems.length > 1)
      for (const p of err.problems) process.stderr.write(`mmkit: config ${p.key}: ${terminalSafe(p.message)}\n`);
    else process.stderr.write(`mmkit: ${terminalSafe(message, { keepNewlines: true })}${hint}\n`);
    if (
      process.env.MMKIT_DEBUG &&
      !(err instanceof MmkitError) &&
      !(err instanceof CliError) &&
      err instanceof Error &&
      err.stack
    )
      process.stderr.write(err.stack + '\n');
  }
  return code;
}

/** The README table of exit codes (`mmkit --help` prints it too). */
export const EXIT_CODES_HELP = `
Exit codes:
  0  ok
  1  failure (the command ran but did not succeed: e.g. an order left open)
  2  usage or configuration error (the message names the flag or config key)
  3  venue unreachable or unavailable (connection refused, timeout, 5xx)
  4  run: the kill switch tripped on a risk limit (loss, rejections, heartbeats, a fill not stored); the daemon stopped itself`;
