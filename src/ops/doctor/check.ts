/**
 * `mmkit doctor`'s checks as data: each has a stable id, a title, a status (pass, warn or fail), a
 * detail saying what was found, and for a warn or a fail the fix. The report gathers them with the
 * exit code they mean: 0 when none fails, 3 when an API or a stream of the venue did not answer
 * (nothing else can be judged then), 1 when another check fails (src/cli/exit-codes.ts: FAILURE 1,
 * UNREACHABLE 3).
 */

export type CheckStatus = 'pass' | 'warn' | 'fail';

export interface Check {
  /** Stable id, e.g. `stream.market`, `auth.l2`, `allowance.negRiskExchange` (scripts match on it). */
  readonly id: string;
  readonly title: string;
  readonly status: CheckStatus;
  /** What was found (never a secret). */
  readonly detail: string;
  /** What to do about a warn or a fail. */
  readonly fix?: string;
  /** True when the check failed because the venue did not answer (connection refused, timeout, 5xx). */
  readonly unreachable?: boolean;
}

export interface DoctorReport {
  /** The venue checked (its CLOB base URL). */
  readonly venue: string;
  /** True when the venue is paper (src/cli/venue-kind.ts decides: loopback with no wallet configured, or venue.kind). */
  readonly paper: boolean;
  readonly checks: readonly Check[];
  readonly summary: { readonly pass: number; readonly warn: number; readonly fail: number };
  /** 0 ok, 1 a check failed, 3 the venue (an API or a stream) did not answer. */
  readonly exitCode: 0 | 1 | 3;
}

export const pass = (id: string, title: string, detail: string): Check => ({ id, title, status: 'pass', detail });
export const warn = (id: string, title: string, detail: string, fix: string): Check => ({
  id,
  title,
  status: 'warn',
  detail,
  fix,
});
export const fail = (id: string, title: string, detail: string, fix: string, unreachable = false): Check => ({
  id,
  title,
  status: 'fail',
  detail,
  fix,
  ...(unreachable ? { unreachable: true } : {}),
});

/** The report of a list of checks (order kept). */
export function report(venue: string, paper: boolean, checks: readonly Check[]): DoctorReport {
  const count = (s: CheckStatus) => checks.filter((c) => c.status === s).length;
  const failed = checks.filter((c) => c.status === 'fail');
  const exitCode = failed.some((c) => c.unreachable === true) ? 3 : failed.length > 0 ? 1 : 0;
  return { venue, paper, checks, summary: { pass: count('pass'), warn: count('warn'), fail: count('fail') }, exitCode };
}
