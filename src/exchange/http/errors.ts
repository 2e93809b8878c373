/**
 * HTTP errors of the paper exchange. Every error answers with the spec's envelope
 * `{success: false, error: {code, message}}` and the right status; nothing else leaks.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string> | undefined;
  readonly extra: Record<string, unknown> | undefined;
  constructor(
    status: number,
    code: string,
    message: string,
    opts: { headers?: Record<string, string>; extra?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = opts.headers;
    this.extra = opts.extra;
  }
}

export const badRequest = (message: string, code = 'BAD_REQUEST'): HttpError => new HttpError(400, code, message);
export const unauthorized = (message = 'Unauthorized/Invalid api key'): HttpError =>
  new HttpError(401, 'UNAUTHORIZED', message);
export const forbidden = (message: string): HttpError => new HttpError(403, 'FORBIDDEN', message);
export const notFound = (message: string): HttpError => new HttpError(404, 'NOT_FOUND', message);

export function envelope(code: string, message: string, extra?: Record<string, unknown>): Record<string, unknown> {
  return { ...(extra ?? {}), success: false, error: { code, message } };
}
