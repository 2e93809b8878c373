/**
 * API credentials of the paper exchange. A key set {apiKey, secret, passphrase} belongs to one
 * wallet address and one nonce; it is derived deterministically from a server secret, so
 * `GET /auth/derive-api-key` returns the same credentials for the same (address, nonce), as the
 * venue does. Secrets are held here and nowhere else; they are never logged.
 *
 * Read-only API keys (`POST /auth/readonly-api-key`) are a bare key, no secret or passphrase: an
 * account hands one to a third party that reads its orders, trades and balances (as a Bearer
 * token) and checks it with `GET /auth/validate-readonly-api-key`. They never place, cancel or
 * manage keys (src/exchange/http/readonly-keys.ts). Derived from the server secret and the
 * store's creation count, so replaying the journal recreates the same keys.
 *
 * Builder API keys (`POST /auth/builder-api-key`, CLOB V2) are full credentials {key, secret,
 * passphrase} an account creates for its builder profile (src/exchange/http/builder.ts). Derived
 * like read-only keys (server secret and creation count); revoking one keeps it listed with its
 * revocation time, as the public service lists them.
 */
import { createHmac, randomBytes } from 'node:crypto';

export interface ApiCreds {
  apiKey: string;
  secret: string;
  passphrase: string;
}

export interface ApiKeyRecord extends ApiCreds {
  address: string; // lower case
  nonce: string;
  createdAt: number; // unix ms
}

function uuidFromBytes(b: Buffer): string {
  const h = Buffer.from(b.subarray(0, 16));
  h[6] = ((h[6] ?? 0) & 0x0f) | 0x40;
  h[8] = ((h[8] ?? 0) & 0x3f) | 0x80;
  const x = h.toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** A read-only API key: it reads its address's account data, nothing else. */
export interface ReadonlyKeyRecord {
  apiKey: string;
  address: string; // lower case
  createdAt: number; // unix ms
}

/** Most read-only keys one address holds at once. */
export const MAX_READONLY_KEYS = 20;
/** Most API keys (L2) one address holds at once: a new nonce past it is refused (security review 49 F5). */
export const MAX_API_KEYS = 20;

/** A builder API key of an address: credentials, when made, and when revoked (if it was). */
export interface BuilderKeyRecord extends ApiCreds {
  address: string; // lower case
  createdAt: number; // unix ms
  revokedAt?: number; // unix ms
}

/** Most live (not revoked) builder keys one address holds at once. */
export const MAX_BUILDER_KEYS = 20;

export class ApiKeyStore {
  private readonly byKey = new Map<string, ApiKeyRecord>();
  private readonly byAddrNonce = new Map<string, ApiKeyRecord>();
  private readonly readonlyByKey = new Map<string, ReadonlyKeyRecord>();
  private readonly builderByKey = new Map<string, BuilderKeyRecord>();
  /** Builder keys created so far (the derivation counter; revocations do not lower it). */
  private builderCreated = 0;
  /** Read-only keys created so far (the derivation counter; deletions do not lower it). */
  private readonlyCreated = 0;
  private readonly serverSecret: Buffer;

  /** @param serverSecret keys are derived from it; random per process unless given. */
  constructor(serverSecret?: Buffer) {
    this.serverSecret = serverSecret ?? randomBytes(32);
  }

  /**
   * Keys deleted so far per (address, nonce): a key created again after its deletion is derived with
   * this count, so it is a NEW key, secret and passphrase. Before, deleting a leaked key and creating it
   * again with the same nonce gave back the very same credentials (rotation did nothing). Journal
   * replays delete in the same order, so the count, and every key, come out the same.
   */
  private readonly deletions = new Map<string, number>();
  /** API keys held, by address. */
  readonly #perAddress = new Map<string, number>();

  /** The credentials for (address, nonce), computed without storing them (`generation`: see `deletions`). */
  derive(address: string, nonce: string, generation = 0): ApiCreds {
    // generation 0 keeps the derivation of every key created before deletions counted
    const tail = generation === 0 ? '' : `|g${generation}`;
    const mac = (label: string): Buffer =>
      createHmac('sha256', this.serverSecret).update(`${label}|${address.toLowerCase()}|${nonce}${tail}`).digest();
    return {
      apiKey: uuidFromBytes(mac('key')),
      secret: mac('secret').toString('base64url').padEnd(44, '='),
      passphrase: mac('passphrase').toString('hex'),
    };
  }

  /** Creates (registers) the key for (address, nonce). Returns null when it already exists. */
  create(address: string, nonce: string, now: number): ApiKeyRecord | null {
    const k = `${address.toLowerCase()}|${nonce}`;
    if (this.byAddrNonce.has(k)) return null;
    const rec: ApiKeyRecord = {
      ...this.derive(address, nonce, this.deletions.get(k) ?? 0),
      address: address.toLowerCase(),
      nonce,
      createdAt: now,
    };
    this.byAddrNonce.set(k, rec);
    this.byKey.set(rec.apiKey, rec);
    this.#perAddress.set(rec.address, (this.#perAddress.get(rec.address) ?? 0) + 1);
    return rec;
  }

  /** How many API keys (L2) `address` holds. */
  countOf(address: string): number {
    return this.#perAddress.get(address.toLowerCase()) ?? 0;
  }

  /** The key for (address, nonce) if it was created, registering it if it was not. */
  deriveOrCreate(address: string, nonce: string, now: number): ApiKeyRecord {
    return (
      this.byAddrNonce.get(`${address.toLowerCase()}|${nonce}`) ?? (this.create(address, nonce, now) as ApiKeyRecord)
    );
  }

  get(apiKey: string): ApiKeyRecord | undefined {
    return this.byKey.get(apiKey);
  }

  list(address: string): ApiKeyRecord[] {
    const a = address.toLowerCase();
    return [...this.byKey.values()].filter((r) => r.address === a);
  }

  /**
   * The key created for (address, nonce), or undefined: finding never creates one (as the public
   * service's GET /auth/derive-api-key, 400 when there is none).
   */
  find(address: string, nonce: string): ApiKeyRecord | undefined {
    // by the number: a key journaled under "007" is nonce 7's (the L1 nonce is canonical since review 49 F5)
    const n = BigInt(nonce);
    return this.list(address).find((r) => BigInt(r.nonce) === n);
  }

  /** Number of addresses that hold at least one key. */
  hasAny(address: string): boolean {
    const a = address.toLowerCase();
    for (const r of this.byKey.values()) if (r.address === a) return true;
    return false;
  }

  delete(apiKey: string): boolean {
    const rec = this.byKey.get(apiKey);
    if (rec === undefined) return false;
    this.byKey.delete(apiKey);
    const k = `${rec.address}|${rec.nonce}`;
    this.byAddrNonce.delete(k);
    this.deletions.set(k, (this.deletions.get(k) ?? 0) + 1);
    const n = (this.#perAddress.get(rec.address) ?? 1) - 1;
    if (n > 0) this.#perAddress.set(rec.address, n);
    else this.#perAddress.delete(rec.address);
    return true;
  }

  all(): ApiKeyRecord[] {
    return [...this.byKey.values()];
  }

  // ---- read-only keys ---------------------------------------------------------------------------

  /** Creates a read-only key for `address`; null when it holds MAX_READONLY_KEYS already. */
  createReadonly(address: string, now: number): ReadonlyKeyRecord | null {
    const a = address.toLowerCase();
    if (this.listReadonly(a).length >= MAX_READONLY_KEYS) return null;
    const n = this.readonlyCreated++;
    const mac = createHmac('sha256', this.serverSecret).update(`readonly|${a}|${n}`).digest();
    const rec: ReadonlyKeyRecord = { apiKey: uuidFromBytes(mac), address: a, createdAt: now };
    this.readonlyByKey.set(rec.apiKey, rec);
    return rec;
  }

  /** The read-only key record of `apiKey`, if it is one. */
  readonly(apiKey: string): ReadonlyKeyRecord | undefined {
    return this.readonlyByKey.get(apiKey);
  }

  /** Read-only keys of `address`, oldest first. */
  listReadonly(address: string): ReadonlyKeyRecord[] {
    const a = address.toLowerCase();
    return [...this.readonlyByKey.values()].filter((r) => r.address === a);
  }

  /** Deletes `apiKey` if it is a read-only key of `address`; false otherwise. */
  deleteReadonly(address: string, apiKey: string): boolean {
    const rec = this.readonlyByKey.get(apiKey);
    if (rec === undefined || rec.address !== address.toLowerCase()) return false;
    return this.readonlyByKey.delete(apiKey);
  }

  // ---- builder keys -----------------------------------------------------------------------------

  /** Creates a builder key for `address`; null when it holds MAX_BUILDER_KEYS live ones already. */
  createBuilder(address: string, now: number): BuilderKeyRecord | null {
    const a = address.toLowerCase();
    if (this.listBuilder(a).filter((r) => r.revokedAt === undefined).length >= MAX_BUILDER_KEYS) return null;
    const n = this.builderCreated++;
    const mac = (label: string): Buffer =>
      createHmac('sha256', this.serverSecret).update(`builder-${label}|${a}|${n}`).digest();
    const rec: BuilderKeyRecord = {
      apiKey: uuidFromBytes(mac('key')),
      secret: mac('secret').toString('base64url').padEnd(44, '='),
      passphrase: mac('passphrase').toString('hex'),
      address: a,
      createdAt: now,
    };
    this.builderByKey.set(rec.apiKey, rec);
    return rec;
  }

  /** The builder key record of `apiKey`, if it is one (revoked ones included). */
  builder(apiKey: string): BuilderKeyRecord | undefined {
    return this.builderByKey.get(apiKey);
  }

  /** Builder keys of `address`, revoked ones included, oldest first. */
  listBuilder(address: string): BuilderKeyRecord[] {
    const a = address.toLowerCase();
    return [...this.builderByKey.values()].filter((r) => r.address === a);
  }

  /**
   * Revokes the live builder keys of `address` (only `apiKey` when given) at `now`; returns the
   * keys revoked (none when nothing live matched).
   */
  revokeBuilder(address: string, now: number, apiKey?: string): string[] {
    const out: string[] = [];
    for (const r of this.listBuilder(address)) {
      if (r.revokedAt !== undefined || (apiKey !== undefined && r.apiKey !== apiKey)) continue;
      r.revokedAt = now;
      out.push(r.apiKey);
    }
    return out;
  }
}

/** A stable public alias of an API key: shown as `owner` of other users' orders, so keys never leak. */
export function ownerAlias(apiKey: string): string {
  return uuidFromBytes(createHmac('sha256', 'mmkit-owner-alias').update(apiKey).digest());
}

export function newHeartbeatId(): string {
  return uuidFromBytes(randomBytes(16));
}
