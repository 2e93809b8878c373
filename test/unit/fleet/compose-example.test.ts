/**
 * deploy/fleet/docker-compose.yml (README "Scaling out"), checked statically (no container engine
 * runs here): Redis plus three daemons on one wallet, one Redis URL, distinct member names and data
 * volumes, and no secret written in the file (only `${VAR}` from the environment, or files).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const FILE = new URL('../../../deploy/fleet/docker-compose.yml', import.meta.url);
const text = readFileSync(FILE, 'utf8');
type Service = {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  secrets?: string[];
  profiles?: string[];
};
const doc = parse(text, { merge: true }) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
  secrets: Record<string, { file?: string; environment?: string }>;
};
const daemons = Object.entries(doc.services).filter(([, s]) => s.command?.[0] === 'run');
const SECRET = /PASSWORD|PRIVATE_KEY|API_KEY|API_SECRET|PASSPHRASE|TOKEN/;

describe('the fleet compose example', () => {
  it('has Redis and three daemons sharing its URL, one wallet and one venue', () => {
    expect(doc.services.redis?.image).toMatch(/^redis:/);
    expect(daemons).toHaveLength(3);
    const env = daemons.map(([, s]) => s.environment ?? {});
    expect(new Set(env.map((e) => e.MMKIT_REDIS_URL))).toEqual(new Set(['redis://redis:6379']));
    expect(new Set(env.map((e) => e.MMKIT_KEYSTORE_FILE)).size).toBe(1);
    expect(env[0]?.MMKIT_KEYSTORE_FILE).toMatch(/^\/run\/secrets\//);
    expect(new Set(env.map((e) => e.MMKIT_EXCHANGE_URL)).size).toBe(1);
    for (const [, s] of daemons) expect(s.secrets).toEqual(['mmkit_keystore']);
    expect(doc.secrets.mmkit_keystore?.file).toBeDefined();
  });

  it('requires the fleet markets (a member refuses to start without bot.markets), the same on every daemon', () => {
    const markets = daemons.map(([, s]) => s.environment?.MMKIT_MARKETS);
    expect(new Set(markets).size).toBe(1);
    expect(markets[0]).toMatch(/^\$\{MMKIT_MARKETS:\?[^}]+\}$/);
  });

  it('gives each daemon its own member name and its own data volume', () => {
    const names = daemons.map(([, s]) => s.environment?.MMKIT_FLEET_MEMBER);
    expect(names.every((n) => typeof n === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(n))).toBe(true);
    expect(new Set(names).size).toBe(3);
    const data = daemons.map(([, s]) => (s.volumes ?? []).find((v) => v.endsWith(':/data'))?.split(':')[0]);
    expect(data.every((v) => v !== undefined && v in doc.volumes)).toBe(true);
    expect(new Set(data).size).toBe(3);
  });

  it('writes no secret inline: secret variables come from the environment', () => {
    for (const [name, s] of Object.entries(doc.services))
      for (const [k, v] of Object.entries(s.environment ?? {}))
        if (SECRET.test(k)) expect(String(v), `${name}.${k}`).toMatch(/^\$\{[A-Z_]+(:?[?-][^}]*)?\}$/);
    // and no URL carries a password
    expect(text).not.toMatch(/redis:\/\/[^@\s]*:[^@\s]*@/);
    expect(text).not.toMatch(/0x[0-9a-fA-F]{64}/);
  });

  it('has `mmkit fleet status` as a tool service on the same Redis', () => {
    const s = doc.services['fleet-status'];
    expect(s?.command?.slice(0, 2)).toEqual(['fleet', 'status']);
    expect(s?.environment?.MMKIT_REDIS_URL).toBe('redis://redis:6379');
  });
});
