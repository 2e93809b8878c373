/** A doctor check's detail of a failed request names its route once (src/ops/doctor/errors.ts; trial 15 F6). */
import { describe, expect, it } from 'vitest';
import { routeMessage } from '../../../../src/ops/doctor/errors.ts';

describe('routeMessage', () => {
  it('leads with the route, unless the error already does', () => {
    expect(routeMessage('GET /time', new Error('connect ECONNREFUSED'))).toBe('GET /time: connect ECONNREFUSED');
    expect(routeMessage('GET /auth/derive-api-key', new Error('GET /auth/derive-api-key: 400 BAD_REQUEST'))).toBe(
      'GET /auth/derive-api-key: 400 BAD_REQUEST',
    );
    expect(routeMessage('GET /auth/derive-api-key', new Error('GET /auth/derive-api-key 400'))).toBe(
      'GET /auth/derive-api-key 400',
    );
    // another route's prefix is not this one's
    expect(routeMessage('GET /auth/api-key', new Error('GET /auth/api-keys: 404'))).toBe(
      'GET /auth/api-key: GET /auth/api-keys: 404',
    );
  });
});
