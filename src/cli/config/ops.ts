/** The `ops.*` section of the configuration: the daemon's HTTP server (/metrics, /healthz, status page). */
export const opsSchema = {
  httpPort: {
    doc: "Port of the daemon's HTTP server: /metrics, /healthz and the status page (0 picks a free one).",
    format: 'port',
    default: 8787,
    env: 'MMKIT_HTTP_PORT',
  },
  httpHost: {
    doc: "Address the daemon's HTTP server binds to (loopback by default; 0.0.0.0 in a container).",
    format: String,
    default: '127.0.0.1',
    env: 'MMKIT_HTTP_HOST',
  },
  allowedHosts: {
    doc: "Host names the daemon's HTTP server answers besides localhost, 127.0.0.1, [::1] and the address it binds to (any other Host header gets 421: DNS rebinding). `name` allows any port, `name:port` that port only; e.g. the name and port of a container's published port.",
    format: 'host-list',
    default: [],
    env: 'MMKIT_STATUS_ALLOWED_HOSTS',
  },
  feedStaleMs: {
    doc: '/healthz reports feed_stale after this long without market data, ms (0: never); at least venue.marketSilenceMs (the books go stale and quotes are pulled then), so the bot never quotes on a feed its health calls stale.',
    format: 'nat',
    default: 15_000,
    env: 'MMKIT_FEED_STALE_MS',
  },
};

export type OpsConfig = { httpPort: number; httpHost: string; allowedHosts: string[]; feedStaleMs: number };
