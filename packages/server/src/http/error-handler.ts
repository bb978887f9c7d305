import type { FastifyError, FastifyInstance } from 'fastify';
import { MSG } from '@ecrf/core';
import { AppError } from './app-error.js';

interface FieldError {
  path: string;
  message: string;
}

function validationErrors(error: FastifyError): FieldError[] {
  return (error.validation ?? []).map((v) => {
    const issue = (v.params as { issue?: { path?: PropertyKey[] } } | undefined)?.issue;
    const fromIssue = issue?.path?.map(String).join('.');
    const fromInstance = v.instancePath.replace(/^\//, '').replaceAll('/', '.');
    const where = error.validationContext && error.validationContext !== 'body' ? `${error.validationContext}.` : '';
    return { path: where + (fromIssue ?? fromInstance), message: v.message ?? '参数错误' };
  });
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) {
      return reply.status(error.status).send({ code: error.status, msg: error.message, data: error.data });
    }
    if (error.validation) {
      const errors = validationErrors(error);
      return reply.status(400).send({ code: 400, msg: errors[0]?.message ?? '参数错误', data: { errors } });
    }
    const status = error.statusCode ?? 500;
    if (status === 429) {
      return reply.status(429).send({ code: 429, msg: '请求过于频繁，请稍后再试', data: null });
    }
    if (status >= 400 && status < 500) {
      const msg = status === 413 ? '请求内容过大' : status === 415 ? '不支持的请求格式' : '请求参数错误';
      return reply.status(status).send({ code: status, msg, data: null });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ code: 500, msg: MSG.systemError, data: { requestId: request.id } });
  });
}

export const notFoundBody = { code: 404, msg: '资源不存在', data: null } as const;
