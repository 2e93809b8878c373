/**
 * The package's root folder (holds package.json, config/, strategies/), as a file URL ending in `/`:
 * two levels above this module in the sources (src/core/), three in the build (dist/src/core/).
 * Modules find the package's files from here, never by counting `../` from themselves.
 */
export const PACKAGE_ROOT_URL: URL = new URL(import.meta.url.endsWith('.js') ? '../../../' : '../../', import.meta.url);

/** True when this process runs the compiled JavaScript of dist/, false when the TypeScript sources. */
export const RUNNING_COMPILED: boolean = import.meta.url.endsWith('.js');
