/**
 * The order-book (CLOB) API: its client (./clob-client.ts, see its module comment for units and
 * the order-post contract), the shapes it returns (./clob-types.ts) and the wire mappers
 * (./clob-mappers.ts). This module is the facade importers use.
 */
export * from './clob-types.ts';
export { parseMidPips, parseSignedMicro } from './clob-mappers.ts';
export { ClobClient, paginate, type ClobClientOptions } from './clob-client.ts';
export type { WorldInfo } from './schemas/clob.ts';
