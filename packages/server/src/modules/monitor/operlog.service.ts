import { and, count, desc, eq, gte, ilike, lte } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { operLogs } from '../../db/schema/index.js';
import type { PageRequest } from '../../http/paging.js';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const SECRET_KEY = /pass(word)?|token|secret/i;
const MAX_TEXT = 2000;

declare module 'fastify' {
  interface FastifyRequest {
    responseText?: string;
  }
}

/** Passwords and tokens never reach the log, however deep they sit in a body. */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) ? '******' : redact(v)]),
    );
  }
  return value;
}

function clip(text: string | undefined | null): string | null {
  if (!text) return null;
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

function redactedJson(text: string | undefined): string | null {
  if (!text) return null;
  try {
    return clip(JSON.stringify(redact(JSON.parse(text))));
  } catch {
    return clip(text);
  }
}

function messageOf(responseText: string | undefined): string | null {
  if (!responseText) return null;
  try {
    return (JSON.parse(responseText) as { msg?: string }).msg ?? null;
  } catch {
    return null;
  }
}

/** The browser's cache-busting `_n` says nothing about the operation. */
function withoutCacheBuster(url: string): string {
  return url.replace(/([?&])_n=[^&]*(&|$)/, (_, lead: string, tail: string) => (tail ? lead : '')).replace(/[?&]$/, '');
}

function fallbackTitle(url: string): string {
  const parts = url.split('?')[0]!.split('/').filter(Boolean);
  return parts.slice(1, 4).join('/') || url;
}

function record(ctx: AppContext, request: FastifyRequest, reply: FastifyReply) {
  const config = request.routeOptions.config ?? {};
  const user = request.currentUser;
  const body = request.body as Record<string, unknown> | undefined;
  const loginName = typeof body?.username === 'string' ? body.username : null;
  const resultMsg = messageOf(request.responseText);
  const failed = reply.statusCode >= 400;
  const { _n: _cacheBuster, ...query } = (request.query ?? {}) as Record<string, unknown>;
  const params = { query, body: request.body };
  return ctx.db.insert(operLogs).values({
    title: (config.module ?? fallbackTitle(request.url)).slice(0, 50),
    businessType: (config.action ?? request.method).slice(0, 20),
    method: `${request.method} ${request.routeOptions.url ?? request.url}`.slice(0, 200),
    requestMethod: request.method,
    operUserId: user?.userId ?? null,
    operName: (user ? `${user.name}(${user.userName})` : loginName)?.slice(0, 50) ?? null,
    operUrl: withoutCacheBuster(request.url).slice(0, 500),
    operIp: request.ip,
    operParam: clip(JSON.stringify(redact(params))),
    jsonResult: redactedJson(request.responseText),
    status: failed ? 1 : 0,
    httpStatus: reply.statusCode,
    errorMsg: failed ? resultMsg?.slice(0, 500) ?? null : null,
    costTime: Math.round(reply.elapsedTime),
    requestId: String(request.id),
    operTime: ctx.clock(),
  });
}

/** Every request that changes something is recorded after its answer is sent. */
export function installOperationLog(app: FastifyInstance, ctx: AppContext) {
  const pending = new Set<Promise<unknown>>();
  app.decorate('flushOperLogs', async () => {
    await Promise.allSettled([...pending]);
  });

  app.addHook('onSend', async (request, _reply, payload) => {
    if (WRITE_METHODS.has(request.method) && typeof payload === 'string') request.responseText = payload;
    return payload;
  });

  app.addHook('onResponse', async (request, reply) => {
    if (!WRITE_METHODS.has(request.method) || !request.url.startsWith('/api/')) return;
    const write = record(ctx, request, reply)
      .catch((err: unknown) => request.log.error({ err }, 'operation log write failed'))
      .finally(() => pending.delete(write));
    pending.add(write);
  });
}

export interface OperLogFilter {
  title?: string;
  operName?: string;
  status?: number;
  businessType?: string;
  beginTime?: Date;
  endTime?: Date;
}

export async function listOperLogs(ctx: AppContext, filter: OperLogFilter, page: PageRequest) {
  const where = and(
    filter.title ? ilike(operLogs.title, `%${filter.title}%`) : undefined,
    filter.operName ? ilike(operLogs.operName, `%${filter.operName}%`) : undefined,
    filter.businessType ? eq(operLogs.businessType, filter.businessType) : undefined,
    filter.status !== undefined ? eq(operLogs.status, filter.status) : undefined,
    filter.beginTime ? gte(operLogs.operTime, filter.beginTime) : undefined,
    filter.endTime ? lte(operLogs.operTime, filter.endTime) : undefined,
  );
  const [{ total }] = (await ctx.db.select({ total: count() }).from(operLogs).where(where)) as [{ total: number }];
  const list = await ctx.db
    .select()
    .from(operLogs)
    .where(where)
    .orderBy(desc(operLogs.operTime), desc(operLogs.operId))
    .limit(page.limit)
    .offset(page.offset);
  return { list, total: Number(total) };
}
