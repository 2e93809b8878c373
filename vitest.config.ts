import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // strategies/: the tests `mmkit strategy new` writes next to a plugin
    include: [
      'test/unit/**/*.test.ts',
      'test/integration/**/*.test.ts',
      'test/e2e/**/*.test.ts',
      'strategies/**/*.test.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
