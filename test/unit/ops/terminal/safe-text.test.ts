/**
 * Untrusted text for the terminal (src/ops/terminal/safe-text.ts): every control character a venue
 * could send (ANSI CSI, OSC, other C0, DEL, C1, bidi overrides) is spelt out visibly, never passed
 * raw (trial 7 F5); a venue's HTML error page is named, a long body cut (trial 7 F6). The places
 * that print venue text use it: the doctor's report, the pre-flight refusal, the pretty log.
 */
import { describe, expect, it } from 'vitest';
import { preflightRefusal } from '../../../../src/cli/doctor.ts';
import { fail, report } from '../../../../src/ops/doctor/check.ts';
import { messageOf } from '../../../../src/ops/doctor/errors.ts';
import { renderReport } from '../../../../src/ops/doctor/render.ts';
import { PrettyView } from '../../../../src/ops/terminal/pretty-view.ts';
import { terminalSafe, venueErrorText } from '../../../../src/ops/terminal/safe-text.ts';

/** The hostile body of the finding: a colour (CSI), a window title (OSC ended by BEL). */
const HOSTILE = 'nope \u001b]0;pwned\u0007\u001b[31mRED\u001b[0m end';
/** Any character a terminal acts on: C0 (but space), DEL, C1, separators, bidi controls. */
const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe('terminalSafe', () => {
  it('spells out ESC, BEL and the other control characters, and leaves other text as it is', () => {
    expect(terminalSafe(HOSTILE)).toBe('nope \\x1b]0;pwned\\x07\\x1b[31mRED\\x1b[0m end');
    expect(terminalSafe('a\nb\rc\td')).toBe('a\\nb\\rc\\td');
    expect(terminalSafe('\u0000\u007f\u009b\u202e\u2066')).toBe('\\x00\\x7f\\x9b\\u202e\\u2066');
    expect(terminalSafe('Will BTC hit $100k? — «ü» 😀')).toBe('Will BTC hit $100k? — «ü» 😀');
  });

  it('keeps newlines only when asked (a message of ours made of lines), nothing else', () => {
    expect(terminalSafe('line 1\nline 2 \u001b[2J', { keepNewlines: true })).toBe('line 1\nline 2 \\x1b[2J');
    expect(terminalSafe('a\r\nb', { keepNewlines: true })).toBe('a\\r\nb');
  });

  it('leaves no raw control character in any of the 0x00-0xff and separator/bidi code points', () => {
    const all = Array.from({ length: 0x100 }, (_, i) => String.fromCharCode(i)).join('') + '\u2028\u2029\u202a\u2069';
    expect(terminalSafe(all)).not.toMatch(RAW_CONTROL);
    expect(terminalSafe(all, { keepNewlines: true }).replaceAll('\n', '')).not.toMatch(RAW_CONTROL);
  });
});

describe('venueErrorText', () => {
  it('names an HTML page instead of dumping it, keeping what came before it', () => {
    const page = '<!DOCTYPE HTML>\n<html lang="en">\n    <head>\n<title>Error response</title>' + 'x'.repeat(500);
    expect(venueErrorText(`GET /health: 404: ${page}`)).toBe(
      "GET /health: 404: an HTML page, not the venue's JSON (is the URL right?)",
    );
    expect(venueErrorText('GET /: 502: <html><body>Bad gateway</body></html>')).toBe(
      "GET /: 502: an HTML page, not the venue's JSON (is the URL right?)",
    );
  });

  it('cuts a long body to 200 characters with an ellipsis; a short one stays whole', () => {
    const long = `GET /: 400: ${'y'.repeat(400)}`;
    const cut = venueErrorText(long);
    expect(Array.from(cut)).toHaveLength(200);
    expect(cut.endsWith('y…')).toBe(true);
    expect(venueErrorText('GET /: 400: bad {"x":1}')).toBe('GET /: 400: bad {"x":1}');
    expect(venueErrorText('a'.repeat(10), 5)).toBe('aaaa…');
  });

  it('spells out control characters (after the cut: an escape is never split)', () => {
    expect(venueErrorText(`GET /: 404: ${HOSTILE}`)).toBe(`GET /: 404: ${terminalSafe(HOSTILE)}`);
    expect(venueErrorText(`${'z'.repeat(198)}\u001b[31m`)).toBe(`${'z'.repeat(198)}\\x1b…`);
  });
});

describe('where venue text is printed', () => {
  it("doctor: a check's detail (messageOf) and the report and pre-flight refusal carry no raw control character", () => {
    const detail = `http://127.0.0.1:1/clob: ${messageOf(new Error(`GET /: 404: ${HOSTILE}`))}`;
    expect(detail).not.toMatch(RAW_CONTROL);
    // a detail made elsewhere, raw: the printers spell it out themselves
    const r = report('http://x', false, [fail('api.clob', 'CLOB API', `GET /: 404: ${HOSTILE}\nPASS  fake`, 'fix')]);
    for (const text of [renderReport(r), preflightRefusal(r)]) {
      expect(text.replaceAll('\n', '')).not.toMatch(RAW_CONTROL);
      expect(text).toContain('\\x1b]0;pwned\\x07');
      expect(text).not.toMatch(/^PASS {2}fake/m);
    }
  });

  it('the pretty log: the message, every field (spaces or not, nested) and the questions learnt', () => {
    const v = new PrettyView({ timeZone: 'utc' });
    v.setMarkets([{ market: '0xm', question: 'Will \u001b[2J it?', tokens: [{ tokenId: '1', outcome: 'Y\u009b' }] }]);
    const out = v.render(
      JSON.stringify({
        level: 50,
        time: 0,
        msg: `bad ${HOSTILE}`,
        market: '0xm',
        detail: '\u001b[31mRED',
        err: { message: 'a\u009b31m' },
        token: '1',
      }),
    );
    expect(out.slice(0, -1)).not.toMatch(RAW_CONTROL);
    expect(out).toContain('\\x1b]0;pwned\\x07');
    expect(v.render('not json \u001b[31m')).toBe('not json \\x1b[31m\n');
  });
});
