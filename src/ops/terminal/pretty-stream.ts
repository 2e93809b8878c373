/**
 * The logger's destination in the pretty format: each JSON line pino writes (already redacted and
 * scrubbed of secrets by the logger's hooks) goes through the terminal view and out as text.
 * In-process and synchronous (no worker thread): a line is on the terminal when the call returns.
 */
import { pino, type Logger } from 'pino';
import type { PrettyView } from './pretty-view.ts';

/** Where the rendered text goes (a SonicBoom destination, a Writable). */
export interface TextOut {
  write(s: string): unknown;
  flushSync?(): void;
}

/** A pino destination stream that renders each line with `view`. */
export class PrettyStream {
  constructor(
    private readonly out: TextOut,
    readonly view: PrettyView,
  ) {}

  write(line: string): boolean {
    this.out.write(this.view.render(line));
    return true;
  }

  flushSync(): void {
    this.out.flushSync?.();
  }
}

/** The terminal view a logger writes through (its children share it); undefined with JSON lines. */
export function terminalView(log: Logger): PrettyView | undefined {
  const s = (log as unknown as Record<symbol, unknown>)[pino.symbols.streamSym];
  return s instanceof PrettyStream ? s.view : undefined;
}

/**
 * `fields` when the logger renders for a person, `{}` with JSON lines: what only the terminal view
 * shows (the JSON lines stay byte for byte what log shippers and tests read).
 */
export function prettyOnly<T extends Record<string, unknown>>(log: Logger, fields: T): T | Record<string, never> {
  return terminalView(log) !== undefined ? fields : {};
}
