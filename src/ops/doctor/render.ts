/**
 * The doctor's report for people: one line per check (status, id, what was found), the fix under
 * each warn or fail, and a summary line that says what the exit code means. A detail may quote what
 * the venue answered: it is printed with its control characters spelt out (terminalSafe), so a
 * venue's body cannot recolour the terminal or fake a line.
 */
import { terminalSafe } from '../terminal/safe-text.ts';
import type { DoctorReport } from './check.ts';

const LABEL = { pass: 'PASS', warn: 'WARN', fail: 'FAIL' } as const;

/** The report as text for a terminal (see the module comment). */
export function renderReport(r: DoctorReport): string {
  const width = Math.max(...r.checks.map((c) => c.id.length), 5);
  const lines = [`mmkit doctor: ${terminalSafe(r.venue)}${r.paper ? ' (paper exchange)' : ''}`, ''];
  for (const c of r.checks) {
    lines.push(`${LABEL[c.status]}  ${c.id.padEnd(width)}  ${c.title}: ${terminalSafe(c.detail)}`);
    if (c.status !== 'pass' && c.fix !== undefined) lines.push(`${' '.repeat(6 + width)}  fix: ${terminalSafe(c.fix)}`);
  }
  const { pass, warn, fail } = r.summary;
  const failed = r.checks
    .filter((c) => c.status === 'fail')
    .map((c) => c.id)
    .join(', ');
  // what could not run is named in the verdict: "ready" over unchecked balances misleads (trial 25 F3)
  const unchecked = r.checks.filter((c) => c.status === 'warn' && c.detail.startsWith('not checked')).map((c) => c.id);
  const verdict =
    r.exitCode === 3
      ? `the venue did not answer: ${failed} (exit 3)`
      : r.exitCode === 1
        ? `failed: ${failed} (exit 1)`
        : warn > 0
          ? `ready, with warnings${unchecked.length > 0 ? ` (not checked: ${unchecked.join(', ')})` : ''}`
          : 'ready';
  lines.push('', `${pass} passed, ${warn} warned, ${fail} failed: ${verdict}`);
  return lines.join('\n') + '\n';
}
