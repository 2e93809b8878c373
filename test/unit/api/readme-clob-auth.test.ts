/**
 * The README documents what a client of another language needs to talk to the paper exchange
 * (findings-3 F1): the spec it cites is in the repository, and the L1 `ClobAuth` typed data it gives
 * is the one src/api/signing/clob-auth.ts signs and the exchange verifies.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLOB_AUTH_MESSAGE, CLOB_AUTH_TYPES, clobAuthDomain } from '../../../src/api/signing/clob-auth.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
/** The README's text as one line (its paragraphs are wrapped). */
const flat = readme.replace(/\s*\n\s*/g, ' ');

describe('README: the spec and L1 auth', () => {
  it('cites the spec at a path in the repository', () => {
    expect(readme).toContain('[`docs/service-interface.md`](docs/service-interface.md)');
    expect(existsSync(join(ROOT, 'docs/service-interface.md'))).toBe(true);
    expect(readme).not.toContain('shared/spec/');
  });

  it('gives the ClobAuth typed data the code signs: domain, type and message text', () => {
    const d = clobAuthDomain(137);
    expect(flat).toContain(`{"name": "${d.name}", "version": "${d.version}", "chainId": ${d.chainId}}`);
    const type = `ClobAuth(${CLOB_AUTH_TYPES.ClobAuth.map((f) => `${f.type} ${f.name}`).join(',')})`;
    expect(flat).toContain(`\`${type}\``);
    expect(flat).toContain(`"message": "${CLOB_AUTH_MESSAGE}"`);
  });
});
