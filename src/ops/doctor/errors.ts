/** How a doctor check words a failed request (never a secret: the error tree's messages carry none). */
import { AuthError, NetworkError } from '../../core/errors.ts';

export const isUnreachable = (e: unknown): boolean => e instanceof NetworkError;
export const isAuth = (e: unknown): boolean => e instanceof AuthError;
export const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e)).slice(0, 300);
