import multipart from '@fastify/multipart';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../http/app-error.js';
import { studyAccessOf } from '../../http/study-guard.js';
import type { App } from '../../http/types.js';
import { ApiRefusal, resolveApiToken } from './api-token.service.js';
import { readCsv, writeCsv } from './redcap-csv.js';
import * as redcap from './redcap.service.js';

type Params = Record<string, unknown>;

const CONTENTS = ['record', 'metadata', 'instrument', 'project', 'exportFieldNames', 'version'] as const;
/** An API call's body: REDCap clients send imports of thousands of rows. */
const BODY_LIMIT = 20 * 1024 * 1024;

/** application/x-www-form-urlencoded into REDCap's parameters: a repeated name (`fields[]`) becomes a list. */
function parseForm(text: string): Params {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const known = out[key];
    if (known === undefined) out[key] = value;
    else out[key] = Array.isArray(known) ? [...known, value] : [known, value];
  }
  return out;
}

const text = (params: Params, name: string): string => {
  const v = params[name];
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === 'string' ? first.trim() : '';
};

/** REDCap's list parameters, however a client spells them: `fields[0]=a`, `fields[]=a`, `fields=a,b`. */
function list(params: Params, name: string): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (key !== name && !new RegExp(`^${name}\\[\\d*\\]$`).test(key)) continue;
    for (const v of Array.isArray(value) ? value : [value]) {
      if (typeof v === 'string') {
        out.push(
          ...v
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean),
        );
      }
    }
  }
  return out;
}

function choice<T extends string>(params: Params, name: string, allowed: readonly T[], fallback: T): T {
  const v = text(params, name);
  if (v === '') return fallback;
  if (!(allowed as readonly string[]).includes(v)) {
    throw new ApiRefusal(400, `参数 ${name} 的值 ${v} 无效，可用：${allowed.join('、')}`);
  }
  return v as T;
}

function send(reply: FastifyReply, format: 'json' | 'csv', body: unknown, columns?: readonly string[]) {
  if (format === 'csv') {
    const rows = (Array.isArray(body) ? body : [body]) as Array<Record<string, unknown>>;
    const header = columns ?? Object.keys(rows[0] ?? {});
    const cells = rows.map((r) => Object.fromEntries(header.map((h) => [h, r[h] === undefined ? '' : String(r[h])])));
    return reply.type('text/csv; charset=utf-8').send(writeCsv(header, cells));
  }
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(body));
}

/** Errors as REDCap answers them: `{"error": "…"}` (or the text alone for returnFormat=csv) with its status. */
function sendError(request: FastifyRequest, reply: FastifyReply, status: number, message: string) {
  const params = (request.body ?? {}) as Params;
  request.operDetail = { ...request.operDetail, error: message };
  if (text(params, 'returnFormat') === 'csv') {
    return reply.status(status).type('text/plain; charset=utf-8').send(message);
  }
  return reply
    .status(status)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ error: message }));
}

/**
 * `POST /api/redcap`: REDCap's API for the parts that map (docs/redcap-api.md). The token in the body is
 * the only credential; the same permissions as on the web apply, and every call is in the operation log.
 */
export function redcapRoutes(app: App, ctx: AppContext) {
  void app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: BODY_LIMIT },
      (_request, body, done) => done(null, parseForm(body as string)),
    );
    await scope.register(multipart, {
      attachFieldsToBody: 'keyValues',
      limits: { fieldSize: BODY_LIMIT, fields: 10_000, files: 0 },
    });
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      if (error instanceof ApiRefusal) return sendError(request, reply, error.status, error.message);
      if (error instanceof AppError && error.status < 500) {
        return sendError(request, reply, error.status, error.message);
      }
      const status = error.statusCode ?? 500;
      if (status === 429) return sendError(request, reply, 429, '请求过于频繁，请稍后再试');
      if (status < 500) {
        return sendError(
          request,
          reply,
          status,
          '请求格式不正确：请用表单编码（application/x-www-form-urlencoded）或 multipart 提交参数',
        );
      }
      request.log.error({ err: error }, 'REDCap API call failed');
      return sendError(request, reply, 500, '服务器内部错误');
    });

    scope.post(
      '/api/redcap',
      {
        bodyLimit: BODY_LIMIT,
        schema: {
          tags: ['REDCap API'],
          summary: 'REDCap 兼容 API（表单编码，参数 token、content、format…）',
          consumes: ['application/x-www-form-urlencoded', 'multipart/form-data'],
          security: [],
        },
        config: {
          module: 'REDCap API',
          action: '调用',
          rateLimit: { max: ctx.config.loginRateLimitPerMinute * 4, timeWindow: 60_000 },
        },
      },
      async (request, reply) => {
        const params = (request.body && typeof request.body === 'object' ? request.body : {}) as Params;
        const content = text(params, 'content');
        const action = text(params, 'action') || 'export';
        request.operDetail = {
          action: `${content || '?'}.${action}`.slice(0, 20),
          target: `content=${content} action=${action}`,
        };
        const caller = await resolveApiToken(
          ctx,
          (userId, permissions, studyId) => studyAccessOf(ctx, userId, permissions, studyId),
          text(params, 'token'),
        );
        // Who called, in which study: the operation log names them.
        request.currentUser = caller.user;
        request.studyAccess = caller.access;
        if (!(CONTENTS as readonly string[]).includes(content)) {
          throw new ApiRefusal(
            400,
            `参数 content 的值${content ? ` ${content} ` : ''}无效，支持：${CONTENTS.join('、')}`,
          );
        }
        if (text(params, 'format') === 'xml') throw new ApiRefusal(400, '不支持 format=xml，请使用 json 或 csv');
        const format = choice(params, 'format', ['json', 'csv'] as const, 'json');
        choice(params, 'returnFormat', ['json', 'csv'] as const, 'json');
        choice(params, 'action', ['export', 'import'] as const, 'export');
        if (action === 'import' && content !== 'record') {
          throw new ApiRefusal(400, `content=${content} 不支持导入，只有 record 可以导入`);
        }
        const type = choice(params, 'type', ['flat', 'eav'] as const, 'flat');
        const rawOrLabel = choice(params, 'rawOrLabel', ['raw', 'label'] as const, 'raw');
        const overwrite = choice(params, 'overwriteBehavior', ['normal', 'overwrite'] as const, 'normal');
        const done = (target: string) => {
          request.operDetail = { ...request.operDetail, target: `content=${content} action=${action} ${target}` };
        };

        if (content === 'version') {
          done('');
          return reply.type('text/plain; charset=utf-8').send(redcap.REDCAP_VERSION);
        }
        const project = await redcap.loadProject(ctx, caller);
        switch (content) {
          case 'project':
            done('');
            return send(reply, format, redcap.projectInfoOf(project));
          case 'instrument': {
            const instruments = redcap.instrumentsOf(project);
            done(`count=${instruments.length}`);
            return send(reply, format, instruments, ['instrument_name', 'instrument_label']);
          }
          case 'exportFieldNames': {
            const only = text(params, 'field') || null;
            if (only && !project.byVariable.has(only)) throw new ApiRefusal(400, `字段 ${only} 不存在或无权查看`);
            const names = redcap.exportFieldNamesOf(project, only);
            done(`count=${names.length}`);
            return send(reply, format, names, ['original_field_name', 'choice_value', 'export_field_name']);
          }
          case 'metadata': {
            const selected = redcap.selectFields(project, list(params, 'fields'), list(params, 'forms'));
            const rows = redcap.metadataOf(project, selected);
            done(`count=${rows.length}`);
            return send(reply, format, rows, redcap.METADATA_KEYS);
          }
          case 'record':
            break;
        }
        if (action === 'import') {
          if (type !== 'flat') throw new ApiRefusal(400, '导入只支持 type=flat');
          const data = text(params, 'data');
          let rows: Array<Record<string, string>>;
          if (format === 'csv') rows = readCsv(data);
          else {
            let parsed: unknown;
            try {
              parsed = JSON.parse(data);
            } catch {
              throw new ApiRefusal(400, '参数 data 不是有效的 JSON');
            }
            if (!Array.isArray(parsed) || parsed.some((r) => !r || typeof r !== 'object' || Array.isArray(r))) {
              throw new ApiRefusal(400, '参数 data 应为记录对象的 JSON 数组');
            }
            rows = parsed as Array<Record<string, string>>;
          }
          const count = await redcap.importRecords(ctx, caller, project, rows, {
            overwrite: overwrite === 'overwrite',
            reason: text(params, 'reason') || null,
          });
          done(`records=${count} rows=${rows.length}`);
          const returnContent = text(params, 'returnContent');
          if (returnContent === 'ids') {
            const ids = [...new Set(rows.map((r) => String(r[redcap.RECORD_ID]).trim()))];
            return send(reply, format, format === 'csv' ? ids.map((id) => ({ id })) : ids, ['id']);
          }
          return send(reply, format, format === 'csv' ? { count } : { count }, ['count']);
        }
        const selected = redcap.selectFields(project, list(params, 'fields'), list(params, 'forms'));
        const exported = await redcap.exportRecords(ctx, project, selected, {
          records: list(params, 'records'),
          label: rawOrLabel === 'label',
        });
        done(`records=${exported.records} rows=${exported.rows.length}`);
        if (type === 'eav') {
          const eav = redcap.toEav(project, exported.columns, exported.rows);
          const columns = [
            'record',
            ...(project.longitudinal ? ['redcap_event_name'] : []),
            ...(project.repeating ? ['redcap_repeat_instrument', 'redcap_repeat_instance'] : []),
            'field_name',
            'value',
          ];
          return send(reply, format, eav, columns);
        }
        return send(reply, format, exported.rows, exported.columns);
      },
    );
  });
}
