/**
 * The store's schema, as numbered migrations. Migration N (1-based) is `MIGRATIONS[N - 1]`; a
 * database remembers the highest one applied in `schema_version`. Never edit a shipped migration:
 * append a new one. Every table is STRICT, so a float can never land in an integer money column.
 */
import type Database from 'better-sqlite3';

/** The migrations, in order. Exported for tests (open a file at an older version). */
export const MIGRATIONS: readonly string[] = [
  // 1: orders and fills
  `CREATE TABLE orders (
     id           TEXT    PRIMARY KEY,
     market       TEXT    NOT NULL,
     token        TEXT    NOT NULL,
     side         TEXT    NOT NULL CHECK (side IN ('BUY', 'SELL')),
     price        INTEGER NOT NULL CHECK (price >= 0),
     size         INTEGER NOT NULL CHECK (size >= 0),
     type         TEXT    NOT NULL,
     status       TEXT    NOT NULL CHECK (status IN ('pending', 'live', 'partially_filled', 'filled', 'cancelled', 'rejected', 'unknown')),
     size_matched INTEGER NOT NULL DEFAULT 0 CHECK (size_matched >= 0),
     created_at   INTEGER NOT NULL,
     updated_at   INTEGER NOT NULL,
     reject_code  TEXT
   ) STRICT;
   CREATE INDEX orders_status ON orders (status);
   CREATE TABLE fills (
     trade_id    TEXT    NOT NULL,
     order_id    TEXT    NOT NULL,
     market      TEXT    NOT NULL,
     token       TEXT    NOT NULL,
     side        TEXT    NOT NULL CHECK (side IN ('BUY', 'SELL')),
     price       INTEGER NOT NULL CHECK (price >= 0),
     size        INTEGER NOT NULL CHECK (size >= 0),
     fee         INTEGER NOT NULL CHECK (fee >= 0),
     role        TEXT    NOT NULL CHECK (role IN ('TAKER', 'MAKER')),
     status      TEXT    NOT NULL CHECK (status IN ('MATCHED', 'MINED', 'CONFIRMED', 'RETRYING', 'FAILED')),
     match_time  INTEGER NOT NULL,
     recorded_at INTEGER NOT NULL,
     updated_at  INTEGER NOT NULL,
     PRIMARY KEY (trade_id, order_id)
   ) STRICT;
   CREATE INDEX fills_time ON fills (match_time);`,
  // 2: the append-only audit log of decisions
  `CREATE TABLE audit (
     seq  INTEGER PRIMARY KEY AUTOINCREMENT,
     time INTEGER NOT NULL,
     kind TEXT    NOT NULL,
     json TEXT    NOT NULL
   ) STRICT;
   CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;
   CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;
   CREATE INDEX orders_market ON orders (market, status);`,
  // 3: the ledger: epochs (one per venue + world + address traded on), adjustments to the venue's
  // truth, split / merge / redeem / convert operations, sessions (one per daemon run); fills gain
  // their source (the bot's own orders or not) and epoch. Rows written before belong to epoch 1, a
  // synthetic legacy epoch (venue 'unknown'), created only when there are such rows.
  `CREATE TABLE epochs (
     id         INTEGER PRIMARY KEY,
     venue      TEXT    NOT NULL CHECK (length(venue) > 0),
     world      TEXT,
     address    TEXT    NOT NULL,
     started_at INTEGER NOT NULL CHECK (started_at >= 0)
   ) STRICT;
   CREATE TABLE adjustments (
     seq          INTEGER PRIMARY KEY AUTOINCREMENT,
     epoch        INTEGER REFERENCES epochs (id),
     at           INTEGER NOT NULL CHECK (at >= 0),
     market       TEXT    NOT NULL,
     token        TEXT    NOT NULL,
     size         INTEGER NOT NULL CHECK (size != 0),
     price        INTEGER NOT NULL CHECK (price BETWEEN 0 AND 10000),
     price_source TEXT    NOT NULL CHECK (price_source IN ('venue', 'mid', 'none')),
     cause        TEXT    NOT NULL CHECK (cause IN ('external_trade', 'split', 'merge', 'redeem', 'convert', 'venue_reset', 'reward', 'unknown')),
     note         TEXT
   ) STRICT;
   CREATE INDEX adjustments_epoch ON adjustments (epoch, at);
   CREATE TABLE operations (
     seq        INTEGER PRIMARY KEY AUTOINCREMENT,
     epoch      INTEGER REFERENCES epochs (id),
     at         INTEGER NOT NULL CHECK (at >= 0),
     kind       TEXT    NOT NULL CHECK (kind IN ('split', 'merge', 'redeem', 'convert')),
     market     TEXT    NOT NULL,
     amount     INTEGER NOT NULL CHECK (amount >= 0),
     collateral INTEGER NOT NULL,
     tx         TEXT,
     legs       TEXT    NOT NULL CHECK (json_valid(legs) AND json_type(legs) = 'array')
   ) STRICT;
   CREATE INDEX operations_epoch ON operations (epoch, at);
   CREATE TABLE sessions (
     id         INTEGER PRIMARY KEY AUTOINCREMENT,
     epoch      INTEGER REFERENCES epochs (id),
     started_at INTEGER NOT NULL CHECK (started_at >= 0),
     ended_at   INTEGER CHECK (ended_at IS NULL OR ended_at >= started_at),
     pid        INTEGER NOT NULL CHECK (pid >= 0)
   ) STRICT;
   ALTER TABLE fills ADD COLUMN source TEXT NOT NULL DEFAULT 'bot' CHECK (source IN ('bot', 'external'));
   ALTER TABLE fills ADD COLUMN epoch INTEGER REFERENCES epochs (id);
   INSERT INTO epochs (id, venue, world, address, started_at)
     SELECT 1, 'unknown', NULL, '',
            COALESCE((SELECT MIN(t) FROM (SELECT match_time AS t FROM fills UNION ALL SELECT recorded_at FROM fills
                                          UNION ALL SELECT created_at FROM orders)), 0)
     WHERE EXISTS (SELECT 1 FROM fills) OR EXISTS (SELECT 1 FROM orders);
   UPDATE fills SET epoch = 1;
   CREATE INDEX fills_epoch ON fills (epoch, match_time) WHERE epoch IS NOT NULL;`,
  // 4: liquidity rewards (./rewards.ts): per ledger epoch (0: none), market and UTC date, the bot's
  // estimate while it runs and what the venue paid; every payout is a credit of collateral with
  // cause 'reward' in reward_credits (append-only), whose sum per row is the row's `paid`
  `CREATE TABLE rewards (
     epoch      INTEGER NOT NULL CHECK (epoch >= 0),
     market     TEXT    NOT NULL CHECK (length(market) > 0),
     date       TEXT    NOT NULL CHECK (date GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]'),
     estimated  INTEGER NOT NULL DEFAULT 0 CHECK (estimated >= 0),
     paid       INTEGER NOT NULL DEFAULT 0 CHECK (paid >= 0),
     status     TEXT    NOT NULL DEFAULT 'estimated' CHECK (status IN ('estimated', 'paid')),
     samples    INTEGER NOT NULL DEFAULT 0 CHECK (samples >= 0),
     scored     INTEGER NOT NULL DEFAULT 0 CHECK (scored >= 0 AND scored <= samples),
     updated_at INTEGER NOT NULL CHECK (updated_at >= 0),
     paid_at    INTEGER CHECK (paid_at IS NULL OR paid_at >= 0),
     PRIMARY KEY (epoch, market, date)
   ) STRICT;
   CREATE TABLE reward_credits (
     seq    INTEGER PRIMARY KEY AUTOINCREMENT,
     epoch  INTEGER NOT NULL CHECK (epoch >= 0),
     at     INTEGER NOT NULL CHECK (at >= 0),
     market TEXT    NOT NULL,
     date   TEXT    NOT NULL,
     amount INTEGER NOT NULL CHECK (amount != 0),
     cause  TEXT    NOT NULL DEFAULT 'reward' CHECK (cause = 'reward'),
     source TEXT    NOT NULL CHECK (source IN ('earnings', 'activity'))
   ) STRICT;
   CREATE INDEX reward_credits_at ON reward_credits (at);
   CREATE TRIGGER reward_credits_no_update BEFORE UPDATE ON reward_credits BEGIN SELECT RAISE(ABORT, 'reward_credits is append-only'); END;
   CREATE TRIGGER reward_credits_no_delete BEFORE DELETE ON reward_credits BEGIN SELECT RAISE(ABORT, 'reward_credits is append-only'); END;`,
  // 5: an adjustment booked at the venue's average price keeps it to the venue's 6 decimals (millionths;
  // NULL: the price is whole pips), so the store's average prices and PnL follow the venue's exactly
  `ALTER TABLE adjustments ADD COLUMN price_micro INTEGER CHECK (price_micro IS NULL OR price_micro BETWEEN 0 AND 1000000);`,
  // 6: the PnL of the ledger epoch (0: none) at the open of each UTC day (risk.maxDailyLoss: the day's
  // loss is the PnL now less this; a restart the same day keeps it)
  `CREATE TABLE day_opens (
     epoch INTEGER NOT NULL CHECK (epoch >= 0),
     date  TEXT    NOT NULL CHECK (date GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]'),
     pnl   INTEGER NOT NULL,
     at    INTEGER NOT NULL CHECK (at >= 0),
     PRIMARY KEY (epoch, date)
   ) STRICT;`,
  // 7: an operation keeps its on-chain transaction hash beside the venue's transaction id (`tx`: the
  // relayer's id), as the venue's account activity names it (NULL: not known, or an older row)
  `ALTER TABLE operations ADD COLUMN tx_hash TEXT;`,
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Bring a database up to `target` (default: the latest), in one transaction: either every missing
 * migration applies or none does. Returns the version the database is at afterwards.
 * @throws Error when the database holds a newer schema than this code knows (refuse to guess).
 */
export function migrate(db: Database.Database, file: string, target: number = MIGRATIONS.length): number {
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
  const row = db.prepare('SELECT version FROM schema_version').get() as { version: number } | undefined;
  let version = row?.version ?? 0;
  if (version > MIGRATIONS.length)
    throw new Error(`${file}: store schema version ${version} is newer than this mmkit knows (${MIGRATIONS.length})`);
  if (version >= target) return version;
  db.transaction(() => {
    for (; version < target; version++) db.exec(MIGRATIONS[version] as string);
    db.prepare('DELETE FROM schema_version').run();
    db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(version);
  })();
  return version;
}
