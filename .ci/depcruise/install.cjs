// Lets dependency-cruiser (which supports typescript >=2 <7) read this TypeScript 7 project: inside
// dependency-cruiser, and only there, `typescript` resolves to ./typescript (see its index.mjs).
// Loaded by .dependency-cruiser.cjs, which dependency-cruiser reads before it loads its extractors.
// Remove this folder once dependency-cruiser supports TypeScript 7 (or parses TypeScript itself).
const Module = require('node:module');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const SHIM_DIR = path.join(__dirname, 'typescript');
const FROM_DEPCRUISE = `${path.sep}node_modules${path.sep}dependency-cruiser${path.sep}`;

if (!globalThis.__mmkitDepcruiseTypescriptShim) {
  globalThis.__mmkitDepcruiseTypescriptShim = true;
  // the version check: require('typescript/package.json'), and require.resolve('typescript')
  const resolveFilename = Module._resolveFilename;
  Module._resolveFilename = function (request, parent, ...rest) {
    if (parent?.filename?.includes(FROM_DEPCRUISE)) {
      if (request === 'typescript/package.json') return path.join(SHIM_DIR, 'package.json');
      if (request === 'typescript') return path.join(SHIM_DIR, 'index.mjs');
    }
    return resolveFilename.call(this, request, parent, ...rest);
  };
  // the import itself: await import('typescript')
  Module.register(pathToFileURL(path.join(__dirname, 'resolve-hook.mjs')));
}
