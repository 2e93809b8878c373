#!/usr/bin/env node
// The `mmkit` command. Runs the TypeScript sources through tsx so user strategies written in
// TypeScript load the same way; `npm run build` type-checks and compiles them to dist/.
import { register } from 'tsx/esm/api';
register();
await import('../src/cli/main.ts');
