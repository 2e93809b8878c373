/**
 * The schema of mmkit's configuration (src/cli/config.ts loads it): the convict formats, every key
 * with its doc, default, format and environment variable, and the typed configuration it yields.
 * One module per section in src/cli/config/; this one assembles them in schema order (the order of
 * `mmkit config docs` and the README table).
 */
import './config/formats.ts';
import { exchangeSchema, type ExchangeConfig } from './config/exchange.ts';
import { botSchema, type BotConfig } from './config/bot.ts';
import { venueSchema, type VenueConfig } from './config/venue.ts';
import { doctorSchema, type DoctorConfig } from './config/doctor.ts';
import { secretsSchema, type SecretsConfig } from './config/secrets.ts';
import { budgetsSchema, type BudgetsConfig } from './config/budgets.ts';
import { logSchema, type LogConfig } from './config/log.ts';
import { opsSchema, type OpsConfig } from './config/ops.ts';
import { shadowSchema, type ShadowConfig } from './config/shadow.ts';
import { fleetSchema, type FleetConfig } from './config/fleet.ts';

export { BOUNDED_DOCS } from './config/bounded.ts';
export { parseDuration } from './config/duration.ts';
export type { RiskConfig } from './config/risk.ts';

export const schema = {
  exchange: exchangeSchema,
  bot: botSchema,
  venue: venueSchema,
  doctor: doctorSchema,
  secrets: secretsSchema,
  budgets: budgetsSchema,
  log: logSchema,
  ops: opsSchema,
  shadow: shadowSchema,
  fleet: fleetSchema,
};

export type MmkitConfig = {
  bot: BotConfig;
  shadow: ShadowConfig;
  fleet: FleetConfig;
  venue: VenueConfig;
  doctor: DoctorConfig;
  secrets: SecretsConfig;
  budgets: BudgetsConfig;
  exchange: ExchangeConfig;
  log: LogConfig;
  ops: OpsConfig;
};
