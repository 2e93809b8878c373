/**
 * The status page's inline script is JavaScript a browser can parse (it lives in a TypeScript string,
 * where no compiler checks it): every <script> block compiles.
 */
import { describe, expect, it } from 'vitest';
import { STATUS_PAGE_HTML } from '../../../src/ops/status-page.ts';

describe('the status page', () => {
  it('has inline scripts that parse', () => {
    const scripts = [...STATUS_PAGE_HTML.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const s of scripts) expect(() => new Function(s)).not.toThrow();
    // the daily loss limit's PnL is shown when the daemon sends it
    expect(STATUS_PAGE_HTML).toContain('s.pnl.day');
  });
});
