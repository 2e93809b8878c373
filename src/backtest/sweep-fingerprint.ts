/**
 * What must be equal on the coordinator and the workers of a distributed sweep
 * (./sweep-queue.ts) for a point to give the same numbers on any machine:
 *  - the code: `codeFingerprint()` hashes the Node.js version and the contents of the package's
 *    code (src/ and strategies/ with package.json and package-lock.json when the sources are
 *    there, else dist/). Contents, not modification times: two checkouts of one commit agree;
 *  - the data: `fileSha256()` of each feed file and of a strategy given by path. A feed's header
 *    says the order protocol whose taker fee a backtest charges, so its hash covers that too; the
 *    run's options (a `--fee-protocol` over it among them) travel with every point and are hashed
 *    into the sweep's id (./sweep-queue.ts): nothing of the fee is left to the worker's machine.
 * The queue's name carries the code fingerprint, so a worker of another build or Node.js never
 * sees the points; a worker checks the files' hashes before it runs a point.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_ROOT_URL } from '../core/package-root.ts';

function walk(root: string, rel: string, out: string[]): void {
  for (const e of readdirSync(join(root, rel), { withFileTypes: true })) {
    const r = rel === '' ? e.name : `${rel}/${e.name}`;
    if (e.isDirectory()) {
      if (e.name !== 'node_modules') walk(root, r, out);
    } else if (e.isFile()) out.push(r);
  }
}

/**
 * The fingerprint of the running code (see the module comment): 16 hex digits. `root` is the
 * package's folder (default: this package's).
 */
export function codeFingerprint(
  root: string = fileURLToPath(PACKAGE_ROOT_URL),
  node: string = process.version,
): string {
  const trees = existsSync(join(root, 'src')) ? ['src', 'strategies'] : ['dist/src', 'dist/strategies'];
  const files: string[] = [];
  for (const t of trees) if (existsSync(join(root, t))) walk(root, t, files);
  for (const f of ['package.json', 'package-lock.json']) if (existsSync(join(root, f))) files.push(f);
  files.sort();
  const h = createHash('sha256');
  h.update(`node ${node}\n`);
  for (const f of files) {
    const body = readFileSync(join(root, f));
    h.update(`${f} ${body.length}\n`);
    h.update(body);
  }
  return h.digest('hex').slice(0, 16);
}

/** The sha256 of a file, hex. @throws the file system's error (ENOENT when missing) */
export async function fileSha256(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

/** `fileSha256`, remembered per path, size and modification time (a worker checks every point). */
export class FileHashes {
  readonly #memo = new Map<string, { key: string; sha: string }>();

  /** The file's sha256, or null when it does not exist. */
  async of(path: string): Promise<string | null> {
    const s = statSync(path, { throwIfNoEntry: false });
    if (s === undefined || !s.isFile()) return null;
    const key = `${s.size}:${s.mtimeMs}`;
    const m = this.#memo.get(path);
    if (m !== undefined && m.key === key) return m.sha;
    const sha = await fileSha256(path);
    this.#memo.set(path, { key, sha });
    return sha;
  }
}
