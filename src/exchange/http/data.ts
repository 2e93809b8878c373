/**
 * The data API of the paper exchange (stub: replaced by its implementation).
 */
import type { FastifyInstance } from 'fastify';
import type { PaperExchange } from '../exchange.ts';

export function dataRoutes(_ex: PaperExchange) {
  return async function plugin(_app: FastifyInstance): Promise<void> {};
}
