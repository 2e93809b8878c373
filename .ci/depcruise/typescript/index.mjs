// The part of the TypeScript 2-6 compiler API that dependency-cruiser calls, for a project compiled
// with TypeScript 7 (whose package has no JavaScript compiler API; dependency-cruiser accepts only
// typescript <7 and otherwise skips every .ts file, silently passing with 0 modules cruised).
// dependency-cruiser reaches this module only through ../install.cjs (loaded by .dependency-cruiser.cjs).
//
// transpileModule() does not compile: it parses the TypeScript (oxc, through rolldown's parseAst)
// and returns a JavaScript module made only of the file's module references, one per line:
// `import 'x';` for each import and re-export (type-only ones too: a type import is a dependency
// for layering and cycles) and `import('x');` for each dynamic import or `import('x')` type. The
// acorn extractor of dependency-cruiser then sees exactly these dependencies.
import { readFileSync } from 'node:fs';
import { parseAst } from 'rolldown/parseAst';

export const version = '5.9.0';

/** Module specifiers of a TypeScript source, in order: [{ spec, dynamic }] */
export function moduleReferences(source, fileName = 'module.ts') {
  const program = parseAst(source, { lang: fileName.endsWith('x') ? 'tsx' : 'ts', sourceType: 'module' }, fileName);
  const refs = [];
  const literal = (node) => (node?.type === 'Literal' && typeof node.value === 'string' ? node.value : undefined);
  const walk = (node) => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const child of node) walk(child);
      return;
    }
    switch (node.type) {
      case 'ImportDeclaration':
      case 'ExportNamedDeclaration':
      case 'ExportAllDeclaration': {
        const spec = literal(node.source);
        if (spec !== undefined) refs.push({ spec, dynamic: false });
        break;
      }
      case 'TSImportEqualsDeclaration': {
        const spec = literal(node.moduleReference?.expression);
        if (spec !== undefined) refs.push({ spec, dynamic: false });
        break;
      }
      case 'ImportExpression': {
        const spec = literal(node.source);
        if (spec !== undefined) refs.push({ spec, dynamic: true });
        break;
      }
      case 'TSImportType': {
        const spec = literal(node.argument?.literal ?? node.argument ?? node.source);
        if (spec !== undefined) refs.push({ spec, dynamic: true });
        break;
      }
    }
    for (const key in node) {
      if (key !== 'type' && key !== 'start' && key !== 'end' && key !== 'range' && key !== 'loc') walk(node[key]);
    }
  };
  walk(program);
  return refs;
}

/** @returns {{ outputText: string }} the module references of `source` as JavaScript (see above) */
export function transpileModule(source, options = {}) {
  const refs = moduleReferences(source, options.fileName);
  const outputText = refs
    .map(({ spec, dynamic }) => (dynamic ? `import(${JSON.stringify(spec)});` : `import ${JSON.stringify(spec)};`))
    .join('\n');
  return { outputText: `${outputText}\n` };
}

// tsConfig support: dependency-cruiser reads compilerOptions.baseUrl and paths from it
export const sys = {
  useCaseSensitiveFileNames: true,
  readFile: (path) => readFileSync(path, 'utf8'),
};

export function readConfigFile(fileName, readFile) {
  try {
    return { config: JSON.parse(readFile(fileName)) };
  } catch (error) {
    return { error: { messageText: `cannot read ${fileName}: ${error.message}` } };
  }
}

export function parseJsonConfigFileContent(config) {
  return { options: { ...(config.compilerOptions ?? {}) }, errors: [] };
}

export function formatDiagnostics(diagnostics) {
  return diagnostics.map((d) => String(d.messageText)).join('\n');
}

// dependency-cruiser's own TypeScript extractor (options tsPreCompilationDeps, parser: 'tsc',
// detectJSDocImports) needs the real compiler: keep those off. Its modules still read these at load.
export const SyntaxKind = {};
export const ScriptTarget = {};
export function createSourceFile() {
  throw new Error('the TypeScript shim has no compiler AST: leave tsPreCompilationDeps and parser "tsc" off');
}

export default {
  version,
  SyntaxKind,
  ScriptTarget,
  createSourceFile,
  transpileModule,
  sys,
  readConfigFile,
  parseJsonConfigFileContent,
  formatDiagnostics,
};
