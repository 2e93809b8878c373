/**
 * The layering of mmkit (/work/shared/DESIGN.md, "Dependencies point downward"), checked in CI by
 * `npm run depcruise` (.ci/run, after the lint); any violation fails the run (severity error).
 *
 *   core ← book ← strategy;  core ← api ← venues;  kernel wires venues, engine, risk, execution,
 *   store and the strategy;  cli, ops and backtest sit on top;  strategies/ use only 'mmkit/strategy'.
 *
 * The sources are parsed with swc (@swc/core): TypeScript 7 has no JavaScript compiler API, and
 * dependency-cruiser's own TypeScript path needs typescript <7 (it would skip every .ts file and
 * pass with 0 modules). Type-only imports count (tsPreCompilationDeps): a type import is a
 * dependency for layering and cycles too.
 */
/** The folders the kernel wires (DESIGN.md: they may stay top-level folders that only the kernel wires). */
const KERNEL = '^src/(kernel|engine|risk|execution|store)/';
/** npm packages that do I/O (network, files, processes, module loading) or keep wall-clock timers. */
const IO_PACKAGES =
  'node_modules/(better-sqlite3|bottleneck|commander|convict|ethers|fastify|pino|pino-pretty|prom-client|tsx|undici|ws)/';
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles (type-only imports included).',
      from: { path: '^(src|strategies)/' },
      to: { circular: true },
    },
    {
      name: 'core-imports-nothing-of-ours',
      severity: 'error',
      comment: 'src/core is the bottom: units, ids, events, intents, clock, errors, the Venue port, views.',
      from: { path: '^src/core/' },
      to: { path: '^(src|strategies)/', pathNot: '^src/core/' },
    },
    {
      name: 'book-only-core',
      severity: 'error',
      comment: 'The order-book mirror sits on core only.',
      from: { path: '^src/book/' },
      to: { path: '^(src|strategies)/', pathNot: '^src/(core|book)/' },
    },
    {
      name: 'strategy-only-core',
      severity: 'error',
      comment: 'The plugin API, loader and quoting rules import only core (and themselves).',
      from: { path: '^src/strategy/' },
      to: { path: '^(src|strategies)/', pathNot: '^src/(core|strategy)/' },
    },
    {
      name: 'pure-no-io-packages',
      severity: 'error',
      comment: 'Nothing in core or strategy does I/O: no npm package that does.',
      from: { path: '^src/(core|strategy)/' },
      to: { path: IO_PACKAGES },
    },
    {
      name: 'strategies-only-the-plugin-api',
      severity: 'error',
      comment:
        "Shipped plugins import only 'mmkit/strategy' (src/strategy/index.ts, by package self-reference; not a relative path into src/), node built-ins and npm packages; a plugin's test may import its plugin.",
      from: { path: '^strategies/' },
      to: {
        dependencyTypesNot: ['core', 'npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-bundled', 'npm-no-pkg'],
        pathNot: ['^src/strategy/index\\.ts$', '^strategies/[^/]+\\.ts$'],
      },
    },
    {
      name: 'strategies-api-by-package-name',
      severity: 'error',
      comment: "The plugin API by its package name, 'mmkit/strategy', never by a relative path.",
      from: { path: '^strategies/' },
      to: { path: '^src/', dependencyTypes: ['local'] },
    },
    {
      name: 'plugin-test-imports-own-plugin-only',
      severity: 'error',
      comment: 'Within strategies/, only a test (NAME.test.ts) imports a plugin (its own).',
      from: { path: '^strategies/', pathNot: '\\.test\\.ts$' },
      to: { path: '^strategies/' },
    },
    {
      name: 'api-not-from-core-book-strategy-kernel',
      severity: 'error',
      comment:
        'The API clients are reached through a venue adapter only: never from core, book, strategy or the kernel (engine, risk, execution, store).',
      from: { path: [`^src/(core|book|strategy)/`, KERNEL] },
      to: { path: '^src/api/' },
    },
    {
      name: 'approvals-only-in-risk',
      severity: 'error',
      comment:
        "Only src/risk makes an approval (execution acts on nothing else): src/risk/approval.ts exports the makers for the gate's modules, so nothing outside src/risk imports it (the brand's public part is re-exported by src/risk/gate.ts).",
      from: { path: '^(src|strategies)/', pathNot: '^src/risk/' },
      to: { path: '^src/risk/approval\\.ts$' },
    },
    {
      name: 'exchange-only-api-signing',
      severity: 'error',
      comment: 'The paper exchange verifies signatures with src/api/signing and uses nothing else of src/api.',
      from: { path: '^src/exchange/' },
      to: { path: '^src/api/', pathNot: '^src/api/signing/' },
    },
    {
      name: 'api-only-core',
      severity: 'error',
      comment: 'The API clients sit on core only.',
      from: { path: '^src/api/' },
      to: { path: '^(src|strategies)/', pathNot: '^src/(core|api)/' },
    },
    {
      name: 'venues-not-upward',
      severity: 'error',
      comment:
        'Venue adapters use api (live), exchange (paper), book and core; never what sits above them (cli, ops, backtest, the kernel and what it wires).',
      from: { path: '^src/venues/' },
      to: { path: ['^src/(cli|ops|backtest)/', KERNEL, '^strategies/'] },
    },
    {
      name: 'kernel-not-upward',
      severity: 'error',
      comment:
        'The kernel (createTrader) and what it wires never import cli, ops or backtest (they sit on top) nor shipped plugins.',
      from: { path: KERNEL },
      to: { path: ['^src/(cli|ops|backtest)/', '^strategies/'] },
    },
    {
      name: 'fleet-only-core',
      severity: 'error',
      comment:
        "The fleet's shared state on Redis (src/fleet/) is a service the bot's parts use: it imports only core (and api/http for the budgets' window interface), never the bot above it.",
      from: { path: '^src/fleet/' },
      to: { path: '^(src|strategies)/', pathNot: ['^src/core/', '^src/fleet/', '^src/api/http/'] },
    },
    {
      name: 'exchange-not-upward',
      severity: 'error',
      comment:
        'The paper exchange is a service of its own: not the bot (venues, kernel, strategy) nor cli, ops or backtest.',
      from: { path: '^src/exchange/' },
      to: { path: ['^src/(cli|ops|backtest|venues|strategy)/', KERNEL, '^strategies/'] },
    },
    {
      name: 'ops-backtest-not-cli',
      severity: 'error',
      comment: 'The cli is the top: nothing of ours imports it.',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'Every import resolves (a typo would otherwise escape every rule above).',
      from: { path: '^(src|strategies)/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },

    // package.json `exports` (the 'mmkit/strategy' self-reference) and explicit .ts extensions
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['mmkit-src', 'import', 'node', 'default'],
      extensions: ['.ts', '.js', '.json'],
    },
    // type-only imports count too (swc keeps them before compilation)
    tsPreCompilationDeps: true,
    parser: 'swc',
  },
};
