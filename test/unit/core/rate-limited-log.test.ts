/**
 * The rate-limited log (src/core/rate-limited-log.ts): the first 10 of a kind, then every 1000th
 * with `occurrences`; past the limit at debug or dropped; info lines unlimited when asked.
 */
import { describe, expect, it } from 'vitest';
import { RateLimitedLog } from '../../../src/core/rate-limited-log.ts';

type Line = { level: string; obj: Record<string, unknown>; msg: string | undefined };

function recorder(levels: readonly ('debug' | 'info' | 'warn' | 'error')[] = ['debug', 'info', 'warn', 'error']) {
  const lines: Line[] = [];
  const l: Record<string, (obj: object, msg?: string) => void> = {};
  for (const level of levels) l[level] = (obj, msg) => void lines.push({ level, obj: { ...obj }, msg });
  return { lines, logger: l as { info(obj: object, msg?: string): void } };
}

describe('RateLimitedLog', () => {
  it("others 'debug': the first 10 and every 1000th at the level, the rest at debug, all with occurrences past 10", () => {
    const log = new RateLimitedLog({ others: 'debug' });
    const { lines, logger } = recorder();
    for (let i = 0; i < 2500; i++) log.log(logger, 'info', 'refused.X', { code: 'X' }, 'quote refused');
    expect(lines).toHaveLength(2500);
    const info = lines.filter((x) => x.level === 'info');
    expect(info.map((x) => x.obj.occurrences)).toEqual([...Array(10).fill(undefined), 1000, 2000]);
    expect(lines[10]).toEqual({ level: 'debug', obj: { code: 'X', occurrences: 11 }, msg: 'quote refused' });
    expect(lines[0]).toEqual({ level: 'info', obj: { code: 'X' }, msg: 'quote refused' });
    expect(log.count('refused.X')).toBe(2500);
  });

  it("others 'drop': warnings and errors past the limit are not logged; kinds are counted apart", () => {
    const log = new RateLimitedLog({ others: 'drop' });
    const { lines, logger } = recorder();
    for (let i = 0; i < 1000; i++) log.log(logger, 'warn', 'a', {}, 'a failed');
    for (let i = 0; i < 3; i++) log.log(logger, 'error', 'b', {}, 'b failed');
    expect(lines.filter((x) => x.msg === 'a failed').map((x) => x.obj.occurrences)).toEqual([
      ...Array(10).fill(undefined),
      1000,
    ]);
    expect(lines.filter((x) => x.msg === 'b failed').map((x) => x.level)).toEqual(['error', 'error', 'error']);
    expect(lines.some((x) => x.level === 'debug')).toBe(false);
  });

  it('alwaysInfo: every info line is logged, with occurrences past 10; warnings still limited', () => {
    const log = new RateLimitedLog({ others: 'drop', alwaysInfo: true });
    const { lines, logger } = recorder();
    for (let i = 0; i < 12; i++) log.log(logger, 'info', 'resume', { market: 'm' }, 'resumes');
    for (let i = 0; i < 12; i++) log.log(logger, 'warn', 'pull', { market: 'm' }, 'pulling');
    expect(lines.filter((x) => x.msg === 'resumes').map((x) => x.obj.occurrences)).toEqual([
      ...Array(10).fill(undefined),
      11,
      12,
    ]);
    expect(lines.filter((x) => x.msg === 'pulling')).toHaveLength(10);
  });

  it('an error goes to warn when the logger has no error method; the logger is the call target', () => {
    const log = new RateLimitedLog({ others: 'drop' });
    const seen: unknown[] = [];
    const logger = {
      info() {},
      warn(this: unknown, obj: object) {
        seen.push(this, obj);
      },
    };
    log.log(logger, 'error', 'x', { err: 'boom' }, 'threw');
    expect(seen).toEqual([logger, { err: 'boom' }]);
  });
});
