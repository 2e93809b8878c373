/**
 * The check of a definition's riskPriceBand (src/strategy/price-band.ts), and the loader refusing a
 * plugin whose band is not valid.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.ts';
import { loadStrategy } from '../../../src/strategy/loader.ts';
import { riskPriceBandProblems } from '../../../src/strategy/price-band.ts';

const dir = mkdtempSync(join(tmpdir(), 'mmkit-price-band-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const plugin = (name: string, band: string) => {
  const f = join(dir, `${name}.ts`);
  writeFileSync(
    f,
    `export default { name: '${name}', params: {}, riskPriceBand: ${band}, create() { return { onEvent() {} }; } };\n`,
  );
  return f;
};

describe('riskPriceBandProblems', () => {
  it('accepts a band of min, max and maxMidDistance, any of them', () => {
    expect(riskPriceBandProblems({})).toEqual([]);
    expect(riskPriceBandProblems({ min: 0.02, max: 0.98, maxMidDistance: 0.25 })).toEqual([]);
    expect(riskPriceBandProblems({ maxMidDistance: 1 })).toEqual([]);
    expect(riskPriceBandProblems({ min: 0.5, max: 0.5 })).toEqual([]);
  });
  it('names each problem', () => {
    expect(riskPriceBandProblems(0.2)).toEqual([expect.stringMatching(/must be an object/)]);
    expect(riskPriceBandProblems([0.1, 0.9])).toEqual([expect.stringMatching(/must be an object/)]);
    expect(riskPriceBandProblems({ min: 0 })).toEqual([expect.stringMatching(/riskPriceBand\.min.*\(0, 1\)/)]);
    expect(riskPriceBandProblems({ max: 1 })).toEqual([expect.stringMatching(/riskPriceBand\.max/)]);
    expect(riskPriceBandProblems({ min: '0.1' })).toEqual([expect.stringMatching(/riskPriceBand\.min/)]);
    expect(riskPriceBandProblems({ maxMidDistance: 1.5 })).toEqual([
      expect.stringMatching(/riskPriceBand\.maxMidDistance.*\(0, 1\]/),
    ]);
    expect(riskPriceBandProblems({ maxMidDistance: Number.NaN })).toHaveLength(1);
    expect(riskPriceBandProblems({ min: 0.8, max: 0.2 })).toEqual([expect.stringMatching(/must not exceed/)]);
    expect(riskPriceBandProblems({ low: 0.1 })).toEqual([
      expect.stringMatching(/riskPriceBand\.low.*not a band field/),
    ]);
  });
});

describe('the loader and riskPriceBand', () => {
  it('loads a plugin with a valid band', async () => {
    const d = await loadStrategy(plugin('good', '{ maxMidDistance: 0.25 }'));
    expect(d.riskPriceBand).toEqual({ maxMidDistance: 0.25 });
  });
  it('refuses a plugin whose band is not valid, naming the field', async () => {
    await expect(loadStrategy(plugin('bad', '{ min: 0.9, max: 0.1 }'))).rejects.toThrow(ConfigError);
    await expect(loadStrategy(plugin('bad2', '{ maxMidDistance: 2 }'))).rejects.toThrow(
      /riskPriceBand\.maxMidDistance/,
    );
  });
});
