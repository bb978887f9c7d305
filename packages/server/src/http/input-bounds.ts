import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from './app-error.js';

/**
 * Limits every request passes before any handler, validation or the operation log sees it.
 * Text columns refuse NUL and lone surrogates (PostgreSQL 22021/22P05) and a deeply nested body
 * overflowed recursive code downstream, so such input is refused here with one 400.
 */
export const MAX_BODY_DEPTH = 32;
export const MALFORMED_MSG = '请求内容格式不正确';

export type InputProblem = 'depth' | 'text';

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Text PostgreSQL can store: no NUL, no unpaired UTF-16 surrogate. */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}

/**
 * The first reason a parsed value can't be accepted, or null. Walks with an explicit stack (never
 * recursion), so a body nested thousands of levels deep is measured, not followed.
 * The root object or array is level 1. Buffers (uploaded file parts) are opaque.
 */
export function inputProblem(value: unknown, maxDepth = MAX_BODY_DEPTH): InputProblem | null {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const top = stack.pop()!;
    const v = top.value;
    if (typeof v === 'string') {
      if (!isStorableText(v)) return 'text';
      continue;
    }
    if (v === null || typeof v !== 'object' || Buffer.isBuffer(v)) continue;
    const depth = top.depth + 1;
    if (depth > maxDepth) return 'depth';
    if (Array.isArray(v)) {
      for (const item of v) stack.push({ value: item, depth });
      continue;
    }
    for (const [key, item] of Object.entries(v)) {
      if (!isStorableText(key)) return 'text';
      stack.push({ value: item, depth });
    }
  }
  return null;
}

export function malformedInput(problem: InputProblem): AppError {
  return AppError.badRequest(problem === 'depth' ? 'http.body_too_deep' : 'http.text_invalid', MALFORMED_MSG);
}

/** Throws the 400 when the value can't be accepted. */
export function assertAcceptable(value: unknown): void {
  const problem = inputProblem(value);
  if (problem) throw malformedInput(problem);
}

/**
 * JSON text from inside a request (the `values` field of a form-data save), held to the same
 * bounds as a JSON body. Undefined when it is not valid JSON or out of bounds.
 */
export function parseBoundedJson(
  text: string,
): { ok: true; value: unknown } | { ok: false; problem: InputProblem | 'syntax' } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'syntax' };
  }
  const problem = inputProblem(value);
  return problem ? { ok: false, problem } : { ok: true, value };
}

/**
 * Multipart bodies parsed into `request.body` (attachFieldsToBody): field parts carry their text in
 * `value`, file parts their name in `filename`; both objects also point back at the whole body, so
 * they are read by shape instead of walked.
 */
function multipartTexts(body: unknown): string[] {
  const texts: string[] = [];
  if (!body || typeof body !== 'object') return texts;
  for (const [key, entry] of Object.entries(body)) {
    texts.push(key);
    for (const part of Array.isArray(entry) ? entry : [entry]) {
      if (typeof part === 'string') texts.push(part);
      else if (part && typeof part === 'object' && !Buffer.isBuffer(part)) {
        const { value, filename } = part as { value?: unknown; filename?: unknown };
        if (typeof value === 'string') texts.push(value);
        if (typeof filename === 'string') texts.push(filename);
      }
    }
  }
  return texts;
}

function checkMultipart(request: FastifyRequest): void {
  if (!request.isMultipart?.()) return;
  if (!multipartTexts(request.body).every(isStorableText)) throw malformedInput('text');
}

function isWellEncoded(url: string): boolean {
  try {
    decodeURIComponent(url);
    return true;
  } catch {
    return false;
  }
}

export function installInputBounds(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    void parseJson(request, body as string, (error, value) => {
      if (error) return done(error, undefined);
      const problem = inputProblem(value);
      if (problem) return done(malformedInput(problem), undefined);
      done(null, value);
    });
  });

  app.addHook('preValidation', async (request) => {
    // The query parser keeps a broken escape (`%ED%A0%80`, `%zz`) as literal text; refuse it instead.
    if (!isWellEncoded(request.url)) throw malformedInput('text');
    const problem = inputProblem(request.params) ?? inputProblem(request.query);
    if (problem) throw malformedInput(problem);
  });

  // After validation: the multipart plugin attaches form fields in its own preValidation hook.
  app.addHook('preHandler', async (request) => {
    checkMultipart(request);
  });
}
