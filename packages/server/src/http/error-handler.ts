import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { MSG } from '@ecrf/core';
import { AppError } from './app-error.js';
import { MALFORMED_MSG } from './input-bounds.js';

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

/** Errors @fastify/busboy 3 raises for a body that is not valid form data (they carry no status). */
const MALFORMED_MULTIPART =
  /^(Multipart: Boundary not found|Boundary required|Unexpected end of multipart data|.* terminated early due to unexpected end of multipart data|Missing Content-Type-header\.|Unsupported Content-Type\.|The needle .*)$/;

/**
 * A multipart body busboy could not read, or whose part stream ended before its boundary (a body cut short, a
 * connection closed mid-upload): the client's doing, a 400.
 */
export function isMalformedMultipart(error: FastifyError, request: FastifyRequest): boolean {
  const type = String(request.headers['content-type'] ?? '').toLowerCase();
  return (
    error.statusCode === undefined &&
    type.startsWith('multipart/') &&
    (MALFORMED_MULTIPART.test(error.message) || error.code === 'ERR_STREAM_PREMATURE_CLOSE')
  );
}

/**
 * PostgreSQL refusing a value: input the route schemas should have refused first. A backstop so a
 * gap in a schema is a 4xx, not a 500; logged as a warning because it means a schema to tighten.
 */
const PG_INPUT_ERRORS: Record<string, { status: number; msg: string }> = {
  '22P02': { status: 400, msg: '请求参数错误' }, // invalid_text_representation
  '22003': { status: 400, msg: '请求参数错误' }, // numeric_value_out_of_range
  '22001': { status: 400, msg: '请求参数错误' }, // string_data_right_truncation
  '22007': { status: 400, msg: '请求参数错误' }, // invalid_datetime_format
  '22008': { status: 400, msg: '请求参数错误' }, // datetime_field_overflow
  '22021': { status: 400, msg: MALFORMED_MSG }, // character_not_in_repertoire (NUL)
  '22P05': { status: 400, msg: MALFORMED_MSG }, // untranslatable_character
  '23505': { status: 409, msg: '数据已存在或已被修改，请刷新后重试' }, // unique_violation
};

/** The 4xx for a value PostgreSQL refused (see PG_INPUT_ERRORS), or undefined. */
export function pgInputError(error: unknown): { status: number; msg: string } | undefined {
  return PG_INPUT_ERRORS[pgErrorCode(error) ?? ''];
}

function pgErrorCode(error: unknown): string | undefined {
  // drizzle wraps the driver's error (pg and PGlite both carry the SQLSTATE in `code`) in `cause`.
  for (
    let e = error as { code?: unknown; cause?: unknown } | undefined, i = 0;
    e && i < 3;
    e = e.cause as typeof e, i++
  ) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
  }
  return undefined;
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
    if (isMalformedMultipart(error, request)) {
      return reply.status(400).send({ code: 400, msg: MALFORMED_MSG, data: null });
    }
    const pg = pgInputError(error);
    if (pg) {
      request.log.warn({ err: error }, 'database refused input the route schema let through');
      return reply.status(pg.status).send({ code: pg.status, msg: pg.msg, data: null });
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
