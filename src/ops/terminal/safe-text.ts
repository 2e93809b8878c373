/**
 * Untrusted text made safe for the operator's terminal. A venue's error body, a market's question or
 * an error message that quotes them is text from outside: printed raw, its escape codes (ANSI CSI,
 * OSC, other C0/C1 control characters) would recolour the output, retitle the window, clear the
 * screen or fake a line (a fake "PASS" in `mmkit doctor`). A wrong venue URL pointing at a hostile
 * or captive-portal host is enough (trial 7 F5).
 *
 * Pure: text in, text out. Every control character is spelt out visibly (`\x1b`, `\n`, `\u202e`):
 * nothing is dropped silently, so the operator still sees that the venue sent something odd. The
 * pretty log (./pretty-view.ts), the doctor's report, the pre-flight refusal and the CLI's notes,
 * tables and error lines all go through `terminalSafe`. JSON output needs none of this (JSON
 * escapes control characters itself, and a script reads it, not a terminal).
 *
 * `venueErrorText` also shortens what a venue answered for a person: an HTML page (a wrong URL, a
 * captive portal) is named instead of dumped, any other body is cut (trial 7 F6).
 */

/**
 * Control characters: C0 (but space), DEL, C1, the line and paragraph separators, and the bidi
 * overrides and isolates (they reorder what follows them on the line).
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** Control characters but the newline (a multi-line message of ours keeps its lines). */
const CONTROL_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** One control character spelt out: `\n`, `\r`, `\t`, `\xHH` (C0, DEL, C1), `\uHHHH` (the others). */
function spell(c: string): string {
  const named = NAMED[c];
  if (named !== undefined) return named;
  const n = c.charCodeAt(0);
  return n < 0x100 ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`;
}

/**
 * `text` with every control character spelt out visibly (ESC as `\x1b`, a newline as `\n`): safe to
 * print on a terminal, on one line.
 * @param o.keepNewlines keep "\n" (a message of ours made of lines, which may quote untrusted text:
 *   every other control character is still spelt out)
 */
export function terminalSafe(text: string, o: { readonly keepNewlines?: boolean } = {}): string {
  return text.replace(o.keepNewlines === true ? CONTROL_BUT_NEWLINE : CONTROL, spell);
}

/** Where an HTML page starts in a text (a doctype, or an html/head/body/title tag), or -1. */
const HTML_START = /<!doctype\s+html|<(?:html|head|body|title)[\s>]/i;

/** The longest venue error text `venueErrorText` keeps by default (characters, before escaping). */
export const VENUE_TEXT_MAX = 200;

/**
 * An error text that quotes a venue's answer (`GET /health: 404: <body>`), for a person, on one line:
 * an HTML page in it is replaced by "an HTML page, not the venue's JSON (is the URL right?)"; any
 * other text longer than `max` characters is cut, with an ellipsis; then control characters are
 * spelt out (`terminalSafe`).
 * @param max the longest text kept, in characters (default VENUE_TEXT_MAX)
 */
export function venueErrorText(text: string, max: number = VENUE_TEXT_MAX): string {
  let out = text;
  const html = HTML_START.exec(out);
  if (html !== null) out = `${out.slice(0, html.index)}an HTML page, not the venue's JSON (is the URL right?)`;
  const chars = Array.from(out);
  if (chars.length > max) out = `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
  return terminalSafe(out);
}
