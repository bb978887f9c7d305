import { and, count, desc, eq, gte, ilike, lte, sql, type SQL } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { operLogs } from '../../db/schema/index.js';
import { pagedQuery } from '../../shared/paged-query.js';
import type { PageRequest } from '../../shared/paging.js';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const TARGET_KEY = /^(id|[a-zA-Z]*Id|[a-zA-Z]*Ids)$/;
const MAX_TARGET = 300;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A POST that only reads (the v3 patient list): not an operation, not logged. */
    readOnly?: boolean;
  }
  interface FastifyRequest {
    /** The envelope's code and message of the answer, read before it is sent. */
    answered?: { code: number | null; msg: string | null };
    /**
     * What a route without the envelope tells the log itself (the REDCap API: its content and action,
     * counts and its error text; never values or the token).
     */
    operDetail?: { action?: string; target?: string; error?: string };
    /** The row was written with the request's own transaction (operLogInTransaction). */
    operLogged?: boolean;
  }
}

/** Text fit for a varchar column whatever the client sent: no NUL, no lone surrogate, bounded. */
export function safeText(text: string | null | undefined, max: number): string | null {
  if (text === null || text === undefined) return null;
  // A lone surrogate can't be stored as UTF-8: replace it, as String.prototype.toWellFormed does.
  // Cut first: a cut can split a surrogate pair.
  return text
    .slice(0, max)
    .replaceAll('\u0000', '')
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

const isId = (v: unknown) =>
  (typeof v === 'number' && Number.isSafeInteger(v)) || (typeof v === 'string' && /^\d{1,12}$/.test(v));

/**
 * What an operation acted on: the ids among the route parameters, the query and the top level of
 * the body (`subjectRecordId=12 crfId=3`). Only numeric ids: names, numbers and clinical values
 * stay out of the log, which is readable more widely than the audit trail.
 */
export function targetOf(...sources: unknown[]): string | null {
  const parts: string[] = [];
  for (const source of sources) {
    if (!source || typeof source !== 'object' || Array.isArray(source)) continue;
    for (const [key, value] of Object.entries(source)) {
      if (!TARGET_KEY.test(key)) continue;
      if (isId(value)) parts.push(`${key}=${String(value)}`);
      else if (Array.isArray(value) && value.length > 0 && value.every(isId)) {
        parts.push(`${key}=${value.slice(0, 20).join(',')}${value.length > 20 ? ',…' : ''}`);
      }
    }
  }
  const text = [...new Set(parts)].join(' ');
  return text ? safeText(text, MAX_TARGET) : null;
}

/** The answer's envelope code and message, read without trusting its size or shape. */
function envelopeOf(payload: unknown): { code: number | null; msg: string | null } {
  if (typeof payload !== 'string' || !payload.startsWith('{')) return { code: null, msg: null };
  const code = /^\{"code":(-?\d{1,9})/.exec(payload);
  let msg: string | null = null;
  if (payload.length < 4096) {
    try {
      msg = (JSON.parse(payload) as { msg?: unknown }).msg as string | null;
    } catch {
      msg = null;
    }
  }
  return { code: code ? Number(code[1]) : null, msg: typeof msg === 'string' ? msg : null };
}

function fallbackTitle(path: string): string {
  return path.split('/').filter(Boolean).slice(1, 4).join('/') || path;
}

/** The API's paths: ours under /api/, and REDCap's address of the REDCap-compatible API (docs/redcap-api.md). */
const LOGGED_PREFIXES = ['/api/', '/redcap/api/'];

function isLogged(request: FastifyRequest): boolean {
  return (
    WRITE_METHODS.has(request.method) &&
    LOGGED_PREFIXES.some((prefix) => request.url.startsWith(prefix)) &&
    !request.routeOptions.config?.readOnly
  );
}

/** A request's row: who, what, when, where from and the outcome (`statusCode`, the envelope's code and message). */
function operLogRow(
  ctx: AppContext,
  request: FastifyRequest,
  outcome: { statusCode: number; elapsedTime: number },
): typeof operLogs.$inferInsert {
  const reply = outcome;
  const config = request.routeOptions.config ?? {};
  const user = request.currentUser;
  const body = request.body as Record<string, unknown> | undefined;
  const loginName = typeof body?.username === 'string' ? body.username : null;
  const path = request.url.split('?')[0]!;
  const answered = request.answered ?? { code: null, msg: null };
  const failed = reply.statusCode >= 400 || (answered.code !== null && answered.code !== 200);
  const detail = request.operDetail;
  return {
    title: safeText(config.module ?? fallbackTitle(path), 50)!,
    businessType: safeText(detail?.action ?? config.action ?? request.method, 20)!,
    method: safeText(`${request.method} ${request.routeOptions.url ?? path}`, 200)!,
    requestMethod: request.method,
    operUserId: user?.userId ?? null,
    operName: safeText(user ? `${user.name}(${user.userName})` : loginName, 50),
    operUrl: safeText(path, 500)!,
    operIp: safeText(request.ip, 64),
    studyId: request.studyAccess?.studyId ?? null,
    target:
      detail?.target !== undefined
        ? safeText(detail.target, MAX_TARGET)
        : targetOf(request.params, request.query, body),
    resultCode: answered.code,
    status: failed ? 1 : 0,
    httpStatus: reply.statusCode,
    errorMsg: failed ? safeText(detail?.error ?? answered.msg, 500) : null,
    costTime: Math.round(reply.elapsedTime),
    requestId: safeText(String(request.id), 64),
    operTime: ctx.clock(),
  };
}

async function record(ctx: AppContext, request: FastifyRequest, reply: FastifyReply) {
  await ctx.db.insert(operLogs).values(operLogRow(ctx, request, reply));
}

/**
 * The row of a request whose change commits in one transaction (the form save), as a part of that transaction's
 * own statement (`with …, oper_logged as (…)`): the change and its trace commit together, and the answer costs
 * no statement of its own. The route calls `written` once the transaction committed; a request that fails
 * instead gets its row from the hook below, as every other request does.
 */
export function operLogInTransaction(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  msg: string,
): { cte: SQL; written(): void } {
  request.answered = { code: 200, msg };
  const row = operLogRow(ctx, request, { statusCode: 200, elapsedTime: reply.elapsedTime });
  return {
    // An embedded query comes in parentheses of its own.
    cte: sql`oper_logged as ${ctx.db.insert(operLogs).values(row)}`,
    written: () => {
      request.operLogged = true;
    },
  };
}

/**
 * Every request that changes something is recorded before its answer leaves: an acknowledged
 * change always has its trace. The row holds who, what, when, where from and the result — never
 * the request or response body (names, identifiers and CRF values belong to the audit trail).
 */
export function installOperationLog(app: FastifyInstance, ctx: AppContext) {
  app.decorate('flushOperLogs', async () => {});

  app.addHook('onSend', async (request, reply, payload) => {
    if (!isLogged(request) || request.operLogged) return payload;
    request.answered = envelopeOf(payload);
    try {
      await record(ctx, request, reply);
    } catch (err) {
      // The change may have committed, but the caller is not told it succeeded without its trace.
      request.log.error({ err }, 'operation log write failed');
      reply.status(500).type('application/json; charset=utf-8');
      return JSON.stringify({ code: 500, msg: '操作日志写入失败，请联系管理员', data: null });
    }
    return payload;
  });
}

export interface OperLogFilter {
  /** One study's entries (the study's operation page); absent: the whole log (administrators). */
  studyId?: number;
  title?: string;
  operName?: string;
  status?: number;
  businessType?: string;
  beginTime?: Date;
  endTime?: Date;
}

export async function listOperLogs(ctx: AppContext, filter: OperLogFilter, page: PageRequest) {
  const where = and(
    filter.studyId !== undefined ? eq(operLogs.studyId, filter.studyId) : undefined,
    filter.title ? ilike(operLogs.title, `%${filter.title}%`) : undefined,
    filter.operName ? ilike(operLogs.operName, `%${filter.operName}%`) : undefined,
    filter.businessType ? eq(operLogs.businessType, filter.businessType) : undefined,
    filter.status !== undefined ? eq(operLogs.status, filter.status) : undefined,
    filter.beginTime ? gte(operLogs.operTime, filter.beginTime) : undefined,
    filter.endTime ? lte(operLogs.operTime, filter.endTime) : undefined,
  );
  return pagedQuery(
    ctx.db.select({ total: count() }).from(operLogs).where(where),
    ctx.db.select().from(operLogs).where(where).orderBy(desc(operLogs.operTime), desc(operLogs.operId)).$dynamic(),
    page,
  );
}
