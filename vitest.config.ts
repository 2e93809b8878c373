import { defineConfig } from 'vitest/config';

// Test tiers, one vitest project each (`vitest run` runs them all; `--project <name>` one):
//   unit       test/unit/** and strategies/**/*.test.ts (the tests `mmkit strategy new` writes next
//              to a plugin): pure code, temp files at most; no servers, child processes or sockets.
//              `npm run test:unit`, about a minute.
//   unit-slow  the same folders' `*.slow.test.ts`: property, adversarial and equivalence tests
//              with thousands of generated cases. Name a unit test `<name>.slow.test.ts` when it
//              takes more than a second or so; `npm test` runs them, `npm run test:unit` does not
//              (`npx vitest run --project unit-slow` runs them alone).
//   int        test/integration/** and test/security/**: real loopback servers, child processes.
//   e2e        test/e2e/**: the `mmkit` command as a process.
// `mmkit-src` is the package.json export condition of the TypeScript sources: `mmkit/strategy`
// resolves to src/strategy/index.ts here, the one copy the tests import relatively too.
const UNIT = ['test/unit/**/*.test.ts', 'strategies/**/*.test.ts'];
const SLOW = ['test/unit/**/*.slow.test.ts', 'strategies/**/*.slow.test.ts'];

export default defineConfig({
  resolve: { conditions: ['mmkit-src', 'module', 'node', 'development|production'] },
  ssr: { resolve: { conditions: ['mmkit-src', 'module', 'node', 'development|production'] } },
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT, exclude: SLOW } },
      { extends: true, test: { name: 'unit-slow', include: SLOW } },
      {
        extends: true,
        test: { name: 'int', include: ['test/integration/**/*.test.ts', 'test/security/**/*.test.ts'] },
      },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'] } },
    ],
  },
});
