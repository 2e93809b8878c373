/**
 * Every error the paper exchange's HTTP server answers is the spec's envelope
 * `{success: false, error: {code, message}}`, including the ones fastify and node's HTTP parser
 * produce before any route runs:
 *
 *  - a thrown HttpError / ValidationError / fastify 4xx (400, 401, 403, 404, 413, 429, ...) and any
 *    other error (500, its details only in the log): `errorHandler`;
 *  - an unknown route, or a known path with another method: 404 `NOT_FOUND` (`notFoundHandler`);
 *  - a path parameter over the router's limit (414 `URI_TOO_LONG`) or a malformed percent-encoding
 *    (400 `BAD_REQUEST`): fastify's `frameworkErrors` (`frameworkErrors`);
 *  - a request line plus headers over node's limit (431 `REQUEST_HEADERS_TOO_LARGE`), a request
 *    timeout (408) or unparsable HTTP (400): node's `clientError` event, answered on the raw socket
 *    as an HTTP/1.1 response with the envelope (`clientErrorHandler`).
 *
 * None of these echoes the request's path or headers (a hostile client chooses them).
 */
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ValidationError } from '../../core/errors.ts';
import type { SecurityLog } from '../security-log.ts';
import { envelope, HttpError } from './errors.ts';
import { recordHttpError } from './security-hooks.ts';

export interface ErrorHandlingOptions {
  bodyLimit: number;
  security?: SecurityLog | undefined;
}

/** fastify's error handler: the envelope with the right status; security events recorded. */
export function errorHandler(opts: ErrorHandlingOptions) {
  return (err: unknown, req: FastifyRequest, reply: FastifyReply) => {
    const send = (status: number, code: string, message: string, extra?: Record<string, unknown>) => {
      recordHttpError(opts.security, req, status, code, message);
      return reply.code(status).send(envelope(code, message, extra));
    };
    if (err instanceof HttpError) {
      if (err.headers) reply.headers(err.headers);
      return send(err.status, err.code, err.message, err.extra);
    }
    if (err instanceof ValidationError) return send(400, 'BAD_REQUEST', err.message);
    const e = err as { statusCode?: number; code?: string; message?: string };
    const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
    if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return send(413, 'PAYLOAD_TOO_LARGE', `request body larger than ${opts.bodyLimit} bytes`);
    if (status >= 400 && status < 500)
      return send(status, status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'BAD_REQUEST', e.message ?? 'bad request');
    req.log.error({ err }, 'unhandled error');
    return reply.code(500).send(envelope('INTERNAL', 'internal server error'));
  };
}

/** API bases, named in the 404's message in place of the (unechoed) path. */
const BASES = '/clob, /gamma, /data, /content, /relayer';

/** 404 for an unknown route (or a known path with another method), without echoing the path. */
export function notFoundHandler(req: FastifyRequest, reply: FastifyReply): void {
  reply.code(404).send(envelope('NOT_FOUND', `no route ${req.method} for this path (API bases: ${BASES})`));
}

/** Errors fastify's router raises before routing (fastify's `frameworkErrors` option). */
export function frameworkErrors(maxParamLength: number) {
  return (err: FastifyError, _req: FastifyRequest, reply: FastifyReply): void => {
    if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      reply.code(414).send(envelope('URI_TOO_LONG', `a path parameter is longer than ${maxParamLength} characters`));
      return;
    }
    if (err.code === 'FST_ERR_BAD_URL') {
      reply.code(400).send(envelope('BAD_REQUEST', 'the URL is not validly percent-encoded'));
      return;
    }
    const status = typeof err.statusCode === 'number' && err.statusCode >= 400 ? err.statusCode : 500;
    reply
      .code(status)
      .send(status >= 500 ? envelope('INTERNAL', 'internal server error') : envelope('BAD_REQUEST', 'bad request'));
  };
}

/** The raw HTTP/1.1 response of an envelope (for answers written to the socket). */
export function rawEnvelopeResponse(status: number, reason: string, code: string, message: string): string {
  const body = JSON.stringify(envelope(code, message));
  return (
    `HTTP/1.1 ${status} ${reason}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/**
 * Node's `clientError` (fastify's `clientErrorHandler` option): the request could not be parsed,
 * so no route, hook or error handler runs. Answer it on the socket in the envelope, then close.
 */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  // a reset connection has nobody to answer
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  let response: string;
  if (err.code === 'HPE_HEADER_OVERFLOW')
    response = rawEnvelopeResponse(
      431,
      'Request Header Fields Too Large',
      'REQUEST_HEADERS_TOO_LARGE',
      'the request line and headers are larger than the server accepts',
    );
  else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    response = rawEnvelopeResponse(408, 'Request Timeout', 'REQUEST_TIMEOUT', 'the request took too long to arrive');
  else response = rawEnvelopeResponse(400, 'Bad Request', 'BAD_REQUEST', 'malformed HTTP request');
  if (socket.writable) socket.write(response);
  socket.destroy();
}
