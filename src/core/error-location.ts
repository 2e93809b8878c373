/**
 * Where an error was thrown and what it says, as a person reads them: for the strategy's errors
 * (src/engine/loop.ts, src/kernel/create-strategy.ts, src/strategy/select.ts). Pure.
 */
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';

/** Where an error was thrown: `file:line:column` of the top frame of its stack, when it has one. */
export function errAt(err: unknown): string | undefined {
  if (!(err instanceof Error) || typeof err.stack !== 'string') return undefined;
  for (const line of err.stack.split('\n')) {
    const m = /^\s+at (?:.*? \()?(.+?:\d+:\d+)\)?$/.exec(line);
    if (m) return readableLocation(m[1]!);
  }
  return undefined;
}

/**
 * A frame's location as a person reads it. A module compiled in memory runs from a `data:` URL that
 * holds its whole source (kilobytes, URL-encoded): that is never shown; tsx's compiled CommonJS names
 * its file in a `__filename="…"` prologue, so the location is that file and the compiled line:column.
 * src/strategy/plugin-format.ts keeps plugins off that path; this is the fallback should one get there.
 */
export function readableLocation(loc: string): string {
  // a .js plugin runs from its file:// URL: shown as the path, as a .ts plugin's (editors link path:line:col)
  if (loc.startsWith('file://')) {
    try {
      const m = /^(.*?)(:\d+:\d+)$/.exec(loc);
      return m === null ? fileURLToPath(loc) : fileURLToPath(m[1]!) + m[2]!;
    } catch {
      return loc;
    }
  }
  if (!loc.startsWith('data:')) return loc;
  const pos = /:(\d+:\d+)$/.exec(loc)?.[1];
  const encoded = /^data:[^,]*,__filename(?:=|%3D)(?:"|%22)(.*?)(?:"|%22)/.exec(loc)?.[1];
  let file: string | undefined;
  try {
    file = encoded !== undefined ? decodeURIComponent(encoded) : undefined;
  } catch {
    // not URL-encoded after all: no file name then
  }
  return `${file ?? 'a module compiled in memory (data: URL)'} (compiled code${pos !== undefined ? ` at ${pos}` : ''})`;
}

/**
 * An error's message for a log line or a summary: an Error's message, a thrown string as it is, any
 * other thrown value as util.inspect shows it (`throw { code: 42 }` reads `{ code: 42 }`, not
 * `[object Object]`).
 */
export function errMsg(err: unknown): string {
  const text =
    err instanceof Error
      ? err.message
      : typeof err === 'string'
        ? err
        : inspect(err, { depth: 2, breakLength: Infinity, maxArrayLength: 10, maxStringLength: 200 });
  return text.slice(0, 300);
}

/** The first lines of an error's stack (its message and the top frames), for a log line. */
export function stackHead(err: unknown, frames = 4): string | undefined {
  if (!(err instanceof Error) || typeof err.stack !== 'string') return undefined;
  return err.stack
    .split('\n')
    .slice(0, frames + 1)
    .map((line) => line.replace(/(?:data:|file:\/\/)[^\s)]+/g, readableLocation))
    .join('\n')
    .slice(0, 1000);
}
