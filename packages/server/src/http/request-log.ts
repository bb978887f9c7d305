import type { FastifyRequest, FastifyServerOptions } from 'fastify';

/**
 * Request log lines name the path, never the query string: list filters carry patient names and
 * codes there (`?subjectName=`), and log files are read by people who may not see them (PIPL).
 */
export function requestLogLine(
  request: Pick<FastifyRequest, 'method' | 'url' | 'host' | 'ip'> & { socket?: { remotePort?: number } },
) {
  return {
    method: request.method,
    url: request.url.split('?', 1)[0],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** The logger option with the request serializer above, whatever else the caller configured. */
export function withRequestLogRules(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (!logger) return false;
  const base = logger === true ? {} : logger;
  return { ...base, serializers: { ...base.serializers, req: requestLogLine as never } };
}
