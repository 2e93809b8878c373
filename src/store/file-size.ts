/**
 * The SQLite store's size on disk: its file and its write-ahead log (0 for a file that is not there).
 * `mmkit store archive` reports it before and after; the daemon's `mmkit_store_size_bytes` metric reads it.
 */

import { statSync } from 'node:fs';

/** The bytes of `file` and of its `-wal` (a missing one counts 0). */
export function storeFileBytes(file: string): number {
  return fileBytes(file) + fileBytes(`${file}-wal`);
}

function fileBytes(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
