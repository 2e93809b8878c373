/**
 * `GET /api/geoblock`: the public service answers, on its web host (https://polymarket.com/api/geoblock,
 * not on its API hosts), whether orders from the caller's address would be refused:
 * `{blocked, ip, country, region}`. The paper exchange restricts no one: `blocked` is false, `ip`
 * the caller's address, and no country or region is known (empty strings). `mmkit doctor` reads it.
 */
import type { FastifyInstance } from 'fastify';

export function geoblockRoutes() {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.get('/api/geoblock', async (req) => ({ blocked: false, ip: req.ip, country: '', region: '' }));
  };
}
