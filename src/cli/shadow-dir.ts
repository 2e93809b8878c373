/**
 * Where a shadow run (`mmkit run --shadow`) keeps its files: `<dataDir>/shadow/`, apart from a live
 * daemon's: its lock (daemon.lock there: one shadow run per data dir, and never the live lock, so a
 * live daemon may trade the same data dir meanwhile), its daemon.json and control.token (`mmkit
 * status --shadow`, `mmkit kill --shadow` find it there) and its store (mmkit.db: shadow fills never
 * enter the live store).
 */
import { join } from 'node:path';

/** The shadow run's folder inside the data dir. */
export const SHADOW_DIR = 'shadow';

/** `<dataDir>/shadow`. */
export function shadowDataDir(dataDir: string): string {
  return join(dataDir, SHADOW_DIR);
}
