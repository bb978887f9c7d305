import type { FastifyReply } from 'fastify';

/** Sends a generated file (CSV export, printed form) under its name, as an attachment or shown inline. */
export function sendFile(reply: FastifyReply, file: { fileName: string; type: string; data: Buffer }, inline = false) {
  return reply
    .header('content-type', file.type)
    .header(
      'content-disposition',
      `${inline ? 'inline' : 'attachment'}; filename*=UTF-8''${encodeURIComponent(file.fileName)}`,
    )
    .send(file.data);
}
