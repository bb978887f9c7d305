import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * Requests written byte by byte on a TCP socket, for what app.inject cannot send: a body shorter than its
 * Content-Length, a connection closed mid-body, bytes trickled in. Every request carries `Connection: close`, so
 * the exchange ends when the server closes the socket, whether it answered first or not.
 */

/** The app listening on a free port of the loopback interface. */
export async function listenOnLoopback(app: FastifyInstance): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as AddressInfo).port;
}

export interface RawExchange {
  /** The status line's code, or null when the server closed without answering. */
  status: number | null;
  /** The whole answer as text (head and body). */
  text: string;
  /** The answer's body. */
  body: string;
}

export function headOf(
  method: string,
  url: string,
  headers: Record<string, string | number>,
  contentLength: number | null,
): Buffer {
  const all: Record<string, string | number> = { host: '127.0.0.1', connection: 'close', ...headers };
  if (contentLength !== null) all['content-length'] = contentLength;
  const lines = Object.entries(all).map(([name, value]) => `${name}: ${value}`);
  return Buffer.from(`${method} ${url} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
}

/** A request's bytes: its head (Content-Length as given, the body's length by default) and the body sent at once. */
export function requestBytes(
  method: string,
  url: string,
  headers: Record<string, string | number>,
  body: Buffer = Buffer.alloc(0),
  contentLength: number | null = body.length,
): Buffer {
  return Buffer.concat([headOf(method, url, headers, contentLength), body]);
}

/**
 * After the bytes: `end` closes the sending side (a body shorter than announced is cut short), `stay` keeps the
 * connection open and sends nothing more, `trickle` sends one more byte every `trickleMs` until the server closes.
 */
export type Then = 'end' | 'stay' | 'trickle';

export interface RawCall {
  /** Settles when the server has closed the connection. */
  done: Promise<RawExchange>;
  /** True once the server has closed the connection. */
  closed(): boolean;
  /** Ends the connection from the client's side. */
  abort(): void;
}

/** Sends bytes on a fresh connection; `done` settles with what came back once the connection is closed. */
export function rawSend(port: number, bytes: Buffer, then: Then = 'stay', trickleMs = 20): RawCall {
  const socket = net.connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  let closed = false;
  let trickle: NodeJS.Timeout | undefined;
  const done = new Promise<RawExchange>((resolve) => {
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A reset from the server (it destroyed the socket while bytes were unread) is a close too.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      clearInterval(trickle);
      const text = Buffer.concat(chunks).toString('utf8');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      const split = text.indexOf('\r\n\r\n');
      resolve({ status: status ? Number(status) : null, text, body: split < 0 ? '' : text.slice(split + 4) });
    });
  });
  socket.once('connect', () => {
    socket.write(bytes);
    if (then === 'end') socket.end();
    else if (then === 'trickle') {
      trickle = setInterval(() => {
        if (socket.writable) socket.write('x');
      }, trickleMs);
    }
  });
  return { done, closed: () => closed, abort: () => socket.destroy() };
}

/** Uncaught exceptions raised while `body` runs: each one would end a server process. */
export async function uncaughtDuring<T>(body: () => Promise<T>): Promise<{ result: T; uncaught: Error[] }> {
  const uncaught: Error[] = [];
  const record = (err: Error) => uncaught.push(err);
  process.on('uncaughtException', record);
  try {
    return { result: await body(), uncaught };
  } finally {
    process.off('uncaughtException', record);
  }
}
