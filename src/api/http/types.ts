/**
 * The contract between mmkit's typed API clients (clob, gamma, data, content, relayer) and the HTTP
 * transport under them. Clients describe a request; the transport sends it through the endpoint's
 * budget with auth headers, a timeout and an AbortSignal, retries what is safe to retry, unwraps
 * either envelope, validates the payload with the given schema and maps failures to the error tree
 * of src/core/errors.ts.
 */
import type { z } from 'zod';

export type ApiName = 'clob' | 'gamma' | 'data' | 'content' | 'relayer';
export type HttpMethod = 'GET' | 'POST' | 'DELETE';
export type QueryValue = string | number | boolean | readonly string[] | undefined;

export interface RequestSpec {
  api: ApiName;
  method: HttpMethod;
  /** Path relative to the API's base URL, without query string (the L2-signed path), e.g. "/order". */
  path: string;
  query?: Record<string, QueryValue>;
  /** JSON body; serialised once, and those exact bytes are signed and sent (and re-sent on retry). */
  body?: unknown;
  /**
   * `body` already serialised by the caller, exactly `JSON.stringify(body)` (e.g. built from the
   * cached JSON of signed orders, so the hot path does not serialise them again). When present, a
   * transport signs and sends these bytes; `body` is still given for transports that read it.
   */
  bodyJson?: string;
  /** 'none': public; 'l2': L2 HMAC headers (or Bearer when configured); 'l1': wallet-signed headers. */
  auth: 'none' | 'l2' | 'l1';
  /** L1 nonce (auth 'l1'). */
  nonce?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * True when sending the same bytes twice cannot do anything twice (GETs; a POST of already-signed
   * orders, which the venue refuses as duplicates; cancels). Only such requests are retried after an
   * ambiguous failure (timeout, dropped connection).
   */
  idempotent: boolean;
}

export interface Transport {
  /**
   * Send a request and return the validated payload.
   * @throws RateLimitError, NetworkError (incl. timeouts), AuthError, NotFoundError,
   *   OrderRejectedError, ValidationError (malformed response or request), from src/core/errors.ts
   */
  request<S extends z.ZodType>(spec: RequestSpec, schema: S): Promise<z.output<S>>;
}
