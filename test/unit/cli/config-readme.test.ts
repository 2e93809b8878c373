import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describeConfig } from '../../../src/cli/config.ts';

/** A markdown table row's cells, trimmed (the README is formatted: its columns are padded). */
const cells = (row: string): string[] =>
  row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());

describe('README configuration table', () => {
  it('lists every configuration key, as `mmkit config docs` prints it (regenerate it with that command)', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8').split('\n');
    const first = readme.findIndex((l) => l.startsWith('| `exchange.host`'));
    expect(first).toBeGreaterThan(0);
    let end = first;
    while (readme[end]?.startsWith('|')) end++;
    const documented = readme.slice(first, end).map(cells);
    const expected = describeConfig().split('\n').slice(2).map(cells);
    expect(documented.map((r) => r[0])).toEqual(expected.map((r) => r[0]));
    expect(documented).toEqual(expected);
  });
});
