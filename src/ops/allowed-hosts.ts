/**
 * Which `Host` headers the daemon's status server answers (src/ops/status-server.ts): the defence
 * against DNS rebinding. A page on evil.example whose name an attacker re-points at 127.0.0.1 can
 * make the browser send requests to the status server, but the browser still says
 * `Host: evil.example[:port]`; answering only the names the operator uses keeps the page, the
 * snapshot (address, positions, PnL, orders), /metrics and the event stream out of its reach.
 *
 * Allowed by default: `localhost`, `127.0.0.1` and `[::1]` with any port (a rebinding page cannot make
 * the browser send a loopback name, and `docker run -p 127.0.0.1:9000:8787` publishes another port),
 * and the address the server is bound to when it is a specific one (not 0.0.0.0 / ::), without a port
 * or with the server's own port.
 * The operator adds names (`ops.allowedHosts`, MMKIT_STATUS_ALLOWED_HOSTS): `name` allows that name
 * with any port (a container's published port differs from the daemon's), `name:port` that port only.
 * No wildcard. A missing or malformed Host header is refused. Pure: no I/O.
 */

/** A Host header (or an allowed-host entry) split: the name in lower case (IPv6 in brackets), the port if given. */
export interface HostName {
  readonly name: string;
  readonly port?: number;
}

const HOST_RE = /^(\[[0-9a-f:.]+\]|[a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?)(?::(\d{1,5}))?$/i;

/** Parse `name`, `name:port`, `[v6]`, `[v6]:port`; undefined when malformed (userinfo, path, spaces, bad port...). */
export function parseHost(h: string): HostName | undefined {
  const m = HOST_RE.exec(h);
  if (m === null) return undefined;
  const name = m[1]!.toLowerCase();
  if (m[2] === undefined) return { name };
  const port = Number(m[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  return { name, port };
}

/** A bind address or host name as it appears in a Host header (IPv6 bracketed, lower case). */
function asHostName(h: string): string {
  const x = h.trim().toLowerCase();
  return x.includes(':') && !x.startsWith('[') ? `[${x}]` : x;
}

const WILDCARD_BIND = new Set(['', '0.0.0.0', '[::]', '[::0]', '[0:0:0:0:0:0:0:0]']);
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * Check the entries of `ops.allowedHosts`.
 * @throws Error naming the first malformed entry
 */
export function validateAllowedHosts(entries: readonly string[]): void {
  for (const e of entries) {
    if (typeof e !== 'string' || parseHost(e.trim()) === undefined)
      throw new Error(
        `${JSON.stringify(e)} is not a host name or address with an optional port (e.g. mmkit.lan, 192.168.1.5:8787, [fd00::5])`,
      );
  }
}

/** The Host check of one status server. */
export class AllowedHosts {
  /** Names allowed without a port or with the server's port. */
  readonly #own: Set<string>;
  /** Operator-allowed names with any port. */
  readonly #anyPort: Set<string>;
  /** Operator-allowed `name:port`. */
  readonly #exact: Set<string>;
  readonly #port: number;

  /**
   * @param port the server's port
   * @param bound the addresses or names it is bound to (the configured host, the address it got)
   * @param extra the operator's entries (`ops.allowedHosts`); malformed ones are ignored (validated in the config)
   */
  constructor(port: number, bound: readonly string[], extra: readonly string[] = []) {
    this.#port = port;
    this.#own = new Set();
    for (const b of bound) {
      const n = asHostName(b);
      if (!WILDCARD_BIND.has(n)) this.#own.add(n);
    }
    this.#anyPort = new Set(LOOPBACK_NAMES);
    this.#exact = new Set();
    for (const e of extra) {
      const h = parseHost(e.trim());
      if (h === undefined) continue;
      if (h.port === undefined) this.#anyPort.add(h.name);
      else this.#exact.add(`${h.name}:${h.port}`);
    }
  }

  /** True when a request with this Host header may be answered. */
  allows(header: string | undefined): boolean {
    if (header === undefined || header === '') return false;
    const h = parseHost(header);
    if (h === undefined) return false;
    if (this.#own.has(h.name) && (h.port === undefined || h.port === this.#port)) return true;
    if (this.#anyPort.has(h.name)) return true;
    return h.port !== undefined && this.#exact.has(`${h.name}:${h.port}`);
  }
}
