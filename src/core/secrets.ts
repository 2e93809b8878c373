/**
 * The secret values this process holds (the wallet's private key, the API secret and passphrase,
 * the admin token, ...), registered where they are loaded, so that every error message and every
 * log line can be scrubbed of them whichever path they took to get there.
 *
 * Why a registry of values as well as redaction by path (src/ops/logger.ts): a path list only
 * covers the shapes someone thought of; a secret that slips into a message string, an error's
 * text, or an unexpected field is still caught by its value. The registry is process-wide on
 * purpose (a process has one identity); it does no I/O and reads no clock.
 */

/** What a scrubbed secret is replaced with. */
export const SECRET_CENSOR = '[redacted]';

/** Values shorter than this are not registered: scrubbing them would mangle ordinary text. */
export const MIN_SECRET_LENGTH = 8;

const values = new Set<string>();
/** Longest first, so a secret that contains another is replaced whole. */
let ordered: string[] = [];

function variants(v: string): string[] {
  const out = [v];
  const hex = /^(0x)?([0-9a-fA-F]+)$/.exec(v);
  if (hex !== null) {
    // a hex secret (a private key) may be printed with or without 0x, in either case
    const body = hex[2] as string;
    out.push(body, body.toLowerCase(), body.toUpperCase(), `0x${body.toLowerCase()}`);
  }
  return out;
}

/**
 * Register secret values (undefined, null and values shorter than MIN_SECRET_LENGTH are ignored).
 * A hex value is registered with and without its 0x prefix and in both cases.
 */
export function registerSecret(...secrets: ReadonlyArray<string | undefined | null>): void {
  let changed = false;
  for (const s of secrets) {
    if (typeof s !== 'string' || s.length < MIN_SECRET_LENGTH) continue;
    for (const v of variants(s)) {
      if (v.length >= MIN_SECRET_LENGTH && !values.has(v)) {
        values.add(v);
        changed = true;
      }
    }
  }
  if (changed) ordered = [...values].sort((a, b) => b.length - a.length);
}

/** Forget every registered secret (tests). */
export function clearSecrets(): void {
  values.clear();
  ordered = [];
}

/** How many values are registered (variants included). */
export function secretCount(): number {
  return values.size;
}

/** `text` with every registered secret replaced by SECRET_CENSOR. Cheap when none occurs. */
export function scrubSecrets(text: string): string {
  if (ordered.length === 0 || text.length < MIN_SECRET_LENGTH) return text;
  let out = text;
  for (const s of ordered) if (out.includes(s)) out = out.split(s).join(SECRET_CENSOR);
  return out;
}

/** True when `text` contains a registered secret. */
export function containsSecret(text: string): boolean {
  for (const s of ordered) if (text.includes(s)) return true;
  return false;
}
