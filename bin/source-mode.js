// Running the TypeScript sources instead of dist/ (the bin's fallback when dist/ is missing or
// stale, and sweep workers started from the sources): registers tsx, and a resolve hook that adds
// the `mmkit-src` export condition, so `import ... from 'mmkit/strategy'` in a plugin resolves to
// src/strategy/index.ts, the same module the sources import, and not to dist/ (package.json
// "exports"; vitest and tsc use the same condition).
import { register } from 'node:module';

const CONDITION_HOOKS = `export async function resolve(specifier, context, next) {
  const c = context.conditions ?? [];
  return next(specifier, c.includes('mmkit-src') ? context : { ...context, conditions: [...c, 'mmkit-src'] });
}`;

let registered = false;
export async function registerSourceMode() {
  if (registered) return;
  registered = true;
  const { register: registerTsx } = await import('tsx/esm/api');
  registerTsx();
  register(`data:text/javascript,${encodeURIComponent(CONDITION_HOOKS)}`);
}
