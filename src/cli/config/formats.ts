/**
 * The convict formats of mmkit's configuration (whole numbers and ports worded as `config docs` says,
 * decimal amounts, JSON values, lists, durations, URLs, addresses, secrets, strict booleans),
 * registered with convict when this module is loaded.
 */
import { validateAllowedHosts } from '../../ops/allowed-hosts.ts';
import convict from 'convict';
import { parseDuration } from './duration.ts';

/**
 * A whole number given as text (a file's "8080", the environment's 8080): digits only, else left as
 * given, so the error shows what was written ("abc") instead of convict's parseInt NaN, and "12abc"
 * is not read as 12.
 */
function wholeNumber(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  return /^[-+]?\d+$/.test(t) ? Number(t) : v;
}
// convict's own `nat` says "must be a positive integer" of a key that takes 0, and its `port` names
// no value for text that is not a number: the same checks, worded as `config docs` describes them
convict.addFormat({
  name: 'nat',
  validate(v: unknown) {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new Error('must be an integer >= 0');
  },
  coerce: wholeNumber,
});
convict.addFormat({
  name: 'port',
  validate(v: unknown) {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 65535)
      throw new Error('must be a port, an integer from 0 to 65535');
  },
  coerce: wholeNumber,
});
convict.addFormat({
  name: 'decimal-amount',
  validate(v: unknown) {
    if (typeof v !== 'string' || !/^\d+(\.\d{1,6})?$/.test(v))
      throw new Error('must be a decimal amount string with at most 6 decimals, e.g. "10000"');
  },
});
convict.addFormat({
  name: 'json-array',
  validate(v: unknown) {
    if (!Array.isArray(v)) throw new Error('must be a JSON array');
  },
  coerce(v: unknown) {
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v);
    } catch {
      throw new Error('must be a JSON array');
    }
  },
});
convict.addFormat({
  name: 'json-object',
  validate(v: unknown) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('must be a JSON object');
  },
  coerce(v: unknown) {
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v);
    } catch {
      throw new Error('must be a JSON object');
    }
  },
});
convict.addFormat({
  name: 'string-list',
  validate(v: unknown) {
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new Error('must be a list of strings');
  },
  coerce(v: unknown) {
    if (typeof v !== 'string') return v;
    const t = v.trim();
    if (t.startsWith('[')) return JSON.parse(t);
    return t === '' ? [] : t.split(',').map((x) => x.trim());
  },
});
convict.addFormat({
  name: 'host-list',
  validate(v: unknown) {
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new Error('must be a list of host names');
    validateAllowedHosts(v as string[]);
  },
  coerce(v: unknown) {
    if (typeof v !== 'string') return v;
    const t = v.trim();
    // a JSON array, else a comma list (`[::1]:9000` is a host, not JSON)
    if (t.startsWith('[') && t.includes('"')) {
      try {
        return JSON.parse(t);
      } catch {
        return v;
      }
    }
    return t === '' ? [] : t.split(',').map((x) => x.trim());
  },
});
convict.addFormat({
  name: 'duration-string',
  validate(v: unknown) {
    if (typeof v !== 'string' || (v !== '' && parseDuration(v) === undefined))
      throw new Error('must be a duration like 30s, 5m, 2h or 1500ms (or empty)');
  },
});
convict.addFormat({
  name: 'positive-number',
  validate(v: unknown) {
    if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v)) throw new Error('must be a positive number');
  },
  // environment values arrive as strings
  coerce(v: unknown) {
    return typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v;
  },
});
// convict's own Boolean takes any string but "false" as true: "ture" would switch a flag on
convict.addFormat({
  name: 'bool',
  validate(v: unknown) {
    if (typeof v !== 'boolean') throw new Error('must be true or false (env: true|false|1|0)');
  },
  coerce(v: unknown) {
    if (typeof v !== 'string') return v;
    const s = v.trim().toLowerCase();
    return s === 'true' || s === '1' ? true : s === 'false' || s === '0' ? false : v;
  },
});
convict.addFormat({
  name: 'clob-protocol',
  validate(v: unknown) {
    if (v !== 1 && v !== 2) throw new Error('must be 1 or 2');
  },
  coerce(v: unknown) {
    return v === '1' || v === '2' ? Number(v) : v;
  },
});
convict.addFormat({
  name: 'http-url-or-empty',
  validate(v: unknown) {
    if (typeof v !== 'string' || (v !== '' && !isUrl(v, ['http:', 'https:'])))
      throw new Error('must be an absolute http:// or https:// URL, or empty');
  },
});
convict.addFormat({
  name: 'ws-url-or-empty',
  validate(v: unknown) {
    if (typeof v !== 'string' || (v !== '' && !isUrl(v, ['ws:', 'wss:'])))
      throw new Error('must be an absolute ws:// or wss:// URL, or empty');
  },
});
convict.addFormat({
  name: 'address-or-empty',
  validate(v: unknown) {
    if (typeof v !== 'string' || (v !== '' && !/^0x[0-9a-fA-F]{40}$/.test(v)))
      throw new Error('must be an address (0x + 40 hex digits), or empty');
  },
});
convict.addFormat({
  name: 'private-key-or-empty',
  // never echo the value: convict appends "value was ..." only for formats that do not throw
  // their own full message, so the message here is complete and carries no part of the key
  validate(v: unknown) {
    if (typeof v !== 'string' || (v !== '' && !/^(0x)?[0-9a-fA-F]{64}$/.test(v.trim())))
      throw new Error('must be a private key (0x + 64 hex digits), or empty');
  },
});
convict.addFormat({
  name: 'base64-secret-or-empty',
  // an API secret is base64 (standard or url-safe alphabet, as the HMAC signer reads it: src/api/signing/hmac.ts);
  // a malformed one failed only at the first signed request, as a venue error. The value is never echoed
  validate(v: unknown) {
    if (typeof v !== 'string') throw new Error('must be a string');
    const t = v.trim();
    if (t !== '' && (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(t) || Buffer.from(t, 'base64').length === 0))
      throw new Error('must be the API secret in base64 (as `mmkit keys derive --show-secret` prints it), or empty');
  },
});
convict.addFormat({
  name: 'secret-string',
  validate(v: unknown) {
    if (typeof v !== 'string') throw new Error('must be a string');
  },
});

function isUrl(s: string, protocols: readonly string[]): boolean {
  try {
    return protocols.includes(new URL(s).protocol);
  } catch {
    return false;
  }
}
