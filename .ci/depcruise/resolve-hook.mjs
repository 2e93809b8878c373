// ESM resolve hook (module.register, see install.cjs): dependency-cruiser's `import('typescript')`
// gets ./typescript/index.mjs; every other import resolves as usual.
const SHIM = new URL('./typescript/index.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'typescript' && context.parentURL?.includes('/node_modules/dependency-cruiser/')) {
    return { url: SHIM, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
