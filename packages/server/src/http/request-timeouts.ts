import { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { HttpTimeouts } from '../config.js';
import { MALFORMED_MSG } from './input-bounds.js';

export const REQUEST_TIMEOUT_MSG = '请求超时，请重试';

/**
 * Node's own checks: headers (`headersTimeout`), an idle socket (`connectionTimeout`), and a whole request as a
 * backstop (`requestTimeout`, the longest a request may take: an upload's). Fastify leaves the last two off by
 * default, so a client that stopped sending held its socket, and the handler waiting on it, forever. Node looks for
 * expired requests every `connectionsCheckingInterval` (30 s by default): kept to a fraction of the headers timeout.
 */
export function serverTimeoutOptions(t: HttpTimeouts) {
  const ceiling = t.headersMs + Math.max(t.requestMs, t.uploadMs);
  return {
    clientErrorHandler,
    connectionTimeout: t.idleMs,
    requestTimeout: ceiling,
    http: {
      headersTimeout: t.headersMs,
      requestTimeout: ceiling,
      connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.round(t.headersMs / 4))),
    },
  } satisfies Pick<FastifyServerOptions, 'clientErrorHandler' | 'connectionTimeout' | 'requestTimeout'> & {
    http: object;
  };
}

/**
 * An answer written straight on the socket, as Node writes its own 408 and 400, in the envelope: when the request
 * never reached a handler, or its handler is still reading the body the client stopped sending.
 */
function socketAnswer(status: number, reason: string, msg: string): string {
  const body = JSON.stringify({ code: status, msg, data: null });
  return (
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `X-Content-Type-Options: nosniff\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}
const TIMEOUT_ANSWER = socketAnswer(408, 'Request Timeout', REQUEST_TIMEOUT_MSG);

/**
 * Node's `clientError`: headers not received in time (408), too large (431), or not HTTP, or a body the client
 * cut short by closing its side (400). Fastify's default answers the same statuses in English.
 */
export function clientErrorHandler(this: FastifyInstance, err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const answer =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? TIMEOUT_ANSWER
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? socketAnswer(431, 'Request Header Fields Too Large', '请求头过大')
        : socketAnswer(400, 'Bad Request', MALFORMED_MSG);
  this.log.debug({ err }, 'client error');
  if (socket.writable) socket.write(answer);
  socket.destroy(err);
}

/**
 * A multipart body sent to a route that reads one (its scope registered @fastify/multipart, which decorates the
 * route's requests with isMultipart): the upload's longer limit. Anything else, including a multipart body to a
 * route that refuses it, has the ordinary one.
 */
export function isUpload(request: FastifyRequest): boolean {
  const type = String(request.headers['content-type'] ?? '').toLowerCase();
  return (
    type.startsWith('multipart/form-data') && typeof (request as { isMultipart?: unknown }).isMultipart === 'function'
  );
}

function expire(request: FastifyRequest, reply: FastifyReply, limitMs: number) {
  const socket = request.raw.socket as Socket | null;
  if (request.raw.complete || !socket || socket.destroyed) return;
  request.log.warn({ limitMs, bytesRead: socket.bytesRead }, 'request body not received in time: connection closed');
  if (!reply.raw.headersSent && socket.writable) socket.write(TIMEOUT_ANSWER);
  // Destroying the socket aborts the request: a multipart reader's stream fails, and its handler with it.
  socket.destroy();
}

/**
 * The body of a request must arrive within `requestMs` of its headers (`uploadMs` for an upload), however
 * slowly it trickles in; per request and per route kind, which Node's server-wide `requestTimeout` cannot be.
 * A request whose body has arrived is never cut, however long its handler then works.
 */
export function installRequestTimeouts(app: FastifyInstance, t: HttpTimeouts): void {
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    // Only a request off the network has a body still to come (app.inject's has none, nor a socket).
    if (raw.complete || !(raw.socket instanceof Socket)) return done();
    const limitMs = isUpload(request) ? t.uploadMs : t.requestMs;
    const timer = setTimeout(() => expire(request, reply, limitMs), limitMs);
    const stop = () => clearTimeout(timer);
    raw.once('end', stop);
    raw.once('close', stop);
    done();
  });
}
