import { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../shared/app-error.js';
import { isUpload } from './request-timeouts.js';

/**
 * Uploads whose bodies are still arriving, per user (or per address for a call that names no user in its headers:
 * the REDCap API's token is in the body), on one app server. The upload timeout bounds how long a trickled upload
 * holds a socket; this bounds how many, so one member cannot hold every connection (slow-loris). Generous for a
 * person: choosing a dozen photos at once uploads them side by side.
 */
export const MAX_UPLOADS_PER_USER = 16;
export const MAX_UPLOADS_PER_ADDRESS = 64;
export const UPLOADS_BUSY_MSG = '同时上传的文件过多，请等待当前上传完成后再试';

export function installUploadSlots(app: FastifyInstance): void {
  const arriving = new Map<string, number>();
  app.addHook('preHandler', async (request, reply) => {
    const raw = request.raw;
    // Only a request off the network has a body still to come (app.inject's has none, nor a socket).
    if (raw.complete || !(raw.socket instanceof Socket) || !isUpload(request)) return;
    // Closed before its turn came (the client gave up while the request waited on the database): its 'close' has
    // been emitted already and would never give a slot back.
    if (raw.destroyed || raw.socket.destroyed) return;
    const user = request.currentUser;
    const key = user ? `user:${user.userId}` : `address:${request.ip}`;
    const held = arriving.get(key) ?? 0;
    if (held >= (user ? MAX_UPLOADS_PER_USER : MAX_UPLOADS_PER_ADDRESS)) {
      request.log.warn({ key, held }, 'too many uploads arriving at once: refused');
      // The rest of its body is not read: the connection goes with the answer.
      reply.header('connection', 'close');
      throw new AppError(429, 'http.uploads_busy', UPLOADS_BUSY_MSG);
    }
    arriving.set(key, held + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (arriving.get(key) ?? 1) - 1;
      if (left > 0) arriving.set(key, left);
      else arriving.delete(key);
    };
    raw.once('end', release);
    raw.once('close', release);
  });
}
