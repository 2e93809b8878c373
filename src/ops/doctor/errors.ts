/** How a doctor check words a failed request (never a secret: the error tree's messages carry none). */
import { AuthError, NetworkError } from '../../core/errors.ts';
import { venueErrorText } from '../terminal/safe-text.ts';

export const isUnreachable = (e: unknown): boolean => e instanceof NetworkError;
export const isAuth = (e: unknown): boolean => e instanceof AuthError;
/**
 * A failed request's message as a check's detail: it quotes what the venue answered, so an HTML page
 * (a wrong URL) is named, not dumped, a long body is cut, and control characters are spelt out
 * (src/ops/terminal/safe-text.ts: the detail is printed on the operator's terminal).
 */
export const messageOf = (e: unknown): string => venueErrorText(e instanceof Error ? e.message : String(e));

/**
 * A failed request's detail led by its route, said once (trial 15 F6: "GET /auth/derive-api-key: GET
 * /auth/derive-api-key: 400 ..." when the error's message already names it).
 */
export const routeMessage = (route: string, e: unknown): string => {
  const m = messageOf(e);
  return m.startsWith(`${route}:`) || m.startsWith(`${route} `) ? m : `${route}: ${m}`;
};
