import multipart, { type MultipartFile } from '@fastify/multipart';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { writeRedcapXml, type RedcapXmlShape } from '@ecrf/core/interop';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../http/app-error.js';
import { isMalformedMultipart, pgInputError } from '../../http/error-handler.js';
import { MALFORMED_MSG, isStorableText } from '../../http/input-bounds.js';
import { studyAccessOf } from '../../shared/study-access-of.js';
import type { App } from '../../http/types.js';
import { MAX_UPLOAD_BYTES, receiveFile, servingHeaders, storageKeyOf } from '../files/file.service.js';
import { ApiRefusal, resolveApiToken } from './api-token.service.js';
import { writeCsv } from './redcap-csv.js';
import { FORMATS, sendError, ValueProblems, type Format } from './redcap-errors.js';
import { deleteFile, exportFile, importFile, locateFile, type FileAddress } from './redcap-files.js';
import { exportFieldNamesOf, instrumentsOf, METADATA_KEYS, metadataOf, projectInfoOf } from './redcap-metadata.js';
import { choice, hasParam, list, multipartParams, paramsOf, text, type Params } from './redcap-params.js';
import { loadProject, REDCAP_VERSION, selectFields } from './redcap-project.js';
import { exportCall } from './redcap-export.routes.js';
import { importCall } from './redcap-import.routes.js';
import { LONGITUDINAL_CONTENTS, longitudinalAnswer } from './redcap-longitudinal.js';

const CONTENTS = [
  'record',
  'metadata',
  'instrument',
  'project',
  'exportFieldNames',
  'version',
  'file',
  ...LONGITUDINAL_CONTENTS,
] as const;
/** An API call's body: REDCap clients send imports of thousands of rows. */
const BODY_LIMIT = 20 * 1024 * 1024;
/**
 * Where the API answers: our own address, and REDCap's (`…/redcap/api/`), which PyCap insists on (its URL must
 * end in `/api/`) and which REDCap's documentation teaches every script.
 */
const REDCAP_API_URLS = ['/api/redcap', '/redcap/api/'] as const;

/** application/x-www-form-urlencoded into REDCap's parameters: a repeated name (`fields[]`) becomes a list. */
function parseForm(text: string): Params {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(text)) addParam(out, key, value);
  return out;
}

/**
 * A parameter as it arrives: text no column can hold (NUL, a lone surrogate) is refused here, REDCap-style, before
 * any query sees it (a NUL in `records[]` reached PostgreSQL and answered 500).
 */
function addParam(out: Record<string, string | string[]>, key: string, value: string) {
  if (!isStorableText(key)) throw new ApiRefusal(400, `${MALFORMED_MSG}：参数名含有无法保存的字符`);
  if (!isStorableText(value)) throw new ApiRefusal(400, `${MALFORMED_MSG}：参数 ${key} 含有无法保存的字符`);
  const known = out[key];
  if (known === undefined) out[key] = value;
  else out[key] = Array.isArray(known) ? [...known, value] : [known, value];
}

/** Every failure of a call, answered as REDCap's error (the platform's envelope means nothing to its clients). */
function redcapErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof ValueProblems) return sendError(request, reply, 400, error.message, error.logged);
  if (error instanceof ApiRefusal) return sendError(request, reply, error.status, error.message);
  if (error instanceof AppError && error.status < 500) {
    return sendError(request, reply, error.status, error.message);
  }
  // A body busboy cannot read (a bad boundary, a body cut short) is the caller's mistake, as on every other route.
  if (isMalformedMultipart(error, request)) {
    return sendError(request, reply, 400, `${MALFORMED_MSG}：multipart 内容不完整或 boundary 无效`);
  }
  const pg = pgInputError(error);
  if (pg) {
    request.log.warn({ err: error }, 'database refused input the REDCap API let through');
    return sendError(request, reply, pg.status, pg.msg);
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
}

function send(
  reply: FastifyReply,
  format: Format,
  body: unknown,
  columns?: readonly string[],
  shape: RedcapXmlShape = 'records',
) {
  if (format === 'xml') {
    const rows = (Array.isArray(body) ? body : [body]) as Array<Record<string, string>>;
    return reply
      .type('text/xml; charset=utf-8')
      .send(writeRedcapXml(shape, shape === 'project' ? rows[0]! : rows, columns));
  }
  if (format === 'csv') {
    const rows = (Array.isArray(body) ? body : [body]) as Array<Record<string, unknown>>;
    const header = columns ?? Object.keys(rows[0] ?? {});
    const cells = rows.map((r) => Object.fromEntries(header.map((h) => [h, r[h] === undefined ? '' : String(r[h])])));
    return reply.type('text/csv; charset=utf-8').send(writeCsv(header, cells));
  }
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(body));
}

/**
 * `POST /api/redcap` (and `POST /redcap/api/`): REDCap's API for the parts that map (docs/redcap-api.md). The
 * token in the body is the only credential; the same permissions as on the web apply, and every call is in the
 * operation log.
 */
export function redcapRoutes(app: App, ctx: AppContext) {
  void app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: BODY_LIMIT },
      (_request, body, done) => {
        try {
          done(null, parseForm(body as string));
        } catch (err) {
          done(err as Error, undefined);
        }
      },
    );
    await scope.register(multipart, {
      limits: { fieldSize: BODY_LIMIT, fields: 10_000, files: 1, fileSize: MAX_UPLOAD_BYTES },
    });
    scope.setErrorHandler(redcapErrorHandler);
    // One count per address for both addresses: a client alternating them gets no more calls.
    const rateLimit = scope.rateLimit({ max: ctx.config.redcapApiRateLimitPerMinute, timeWindow: 60_000 });

    for (const url of REDCAP_API_URLS) {
      scope.post(
        url,
        {
          bodyLimit: BODY_LIMIT,
          onRequest: rateLimit,
          schema: {
            tags: ['REDCap API'],
            summary: 'REDCap 兼容 API（表单编码，参数 token、content、format…；也在 /redcap/api/）',
            consumes: ['application/x-www-form-urlencoded', 'multipart/form-data'],
            security: [],
            // REDCap's address is the same route under a second name: documented once.
            hide: url !== REDCAP_API_URLS[0],
          },
          config: { module: 'REDCap API', action: '调用' },
        },
        async (request, reply) => {
          let upload: Upload | null = null;
          try {
            let params: Params;
            if (request.isMultipart()) {
              const fields: Record<string, string | string[]> = {};
              multipartParams.set(request, fields);
              for await (const part of request.parts()) {
                if (part.type === 'file') {
                  if (part.fieldname !== 'file' || upload) {
                    part.file.resume();
                    throw new ApiRefusal(400, '只能上传一个文件，参数名为 file');
                  }
                  upload = await receiveUpload(ctx, fields, part);
                } else {
                  // A part without a name (busboy leaves it undefined) is no parameter.
                  if (typeof part.fieldname !== 'string') throw new ApiRefusal(400, MALFORMED_MSG);
                  addParam(fields, part.fieldname, typeof part.value === 'string' ? part.value : '');
                }
              }
              params = fields;
            } else params = paramsOf(request);
            const answer = await handle(ctx, request, reply, params, upload);
            upload = null;
            return answer;
          } finally {
            // An upload the call did not take (it failed before the file's save) leaves nothing behind.
            if (upload) await ctx.files.delete(storageKeyOf(upload.stored.fileKey));
          }
        },
      );
    }
  });
}

interface Upload {
  stored: Awaited<ReturnType<typeof receiveFile>>;
  fileName: string;
}

const fileAddress = (params: Params): FileAddress => ({
  record: text(params, 'record'),
  field: text(params, 'field'),
  event: text(params, 'event'),
  instance: text(params, 'repeat_instance'),
});

/**
 * The file of `content=file&action=import`, streamed into the file storage only after the token, the
 * record, the field and the caller's permission to change its form are checked: the parameters must come
 * before the file in the body (as REDCap's clients send them).
 */
async function receiveUpload(ctx: AppContext, params: Params, part: MultipartFile): Promise<Upload> {
  if (text(params, 'content') !== 'file' || text(params, 'action') !== 'import') {
    part.file.resume();
    throw new ApiRefusal(400, '只有 content=file&action=import 可以上传文件，且参数须在文件之前');
  }
  const caller = await resolveApiToken(
    ctx,
    (userId, permissions, studyId) => studyAccessOf(ctx, userId, permissions, studyId),
    text(params, 'token'),
  );
  const project = await loadProject(ctx, caller);
  try {
    await locateFile(ctx, caller, project, fileAddress(params), 'import');
  } catch (err) {
    part.file.resume();
    throw err;
  }
  if (!part.filename || !isStorableText(part.filename)) {
    part.file.resume();
    throw new ApiRefusal(400, '文件名无效');
  }
  return { stored: await receiveFile(ctx, part.file, part.filename), fileName: part.filename };
}

/**
 * What the call asks: REDCap reads a call that carries `data` as an import whatever its `action` (no client
 * sends `action=import`), so `data` alone makes one; of the contents we answer only records are imported here.
 */
function actionOf(params: Params, content: string): 'export' | 'import' | 'delete' {
  const action = choice(params, 'action', ['export', 'import', 'delete'] as const, 'export');
  if (!hasParam(params, 'data')) {
    if (action === 'import' && content !== 'record' && content !== 'file') {
      throw new ApiRefusal(400, `content=${content} 不支持导入，只有 record 和 file 可以导入`);
    }
    return action;
  }
  if (content === 'metadata') {
    throw new ApiRefusal(400, '不支持导入数据字典（content=metadata 带参数 data）：表单只能在平台上设计和修改');
  }
  if (content !== 'record') {
    throw new ApiRefusal(400, `content=${content} 不支持导入（参数 data），只有 record 可以导入`);
  }
  if (text(params, 'action') !== '' && action !== 'import') {
    throw new ApiRefusal(400, `参数 data 表示导入，不能与 action=${action} 同用`);
  }
  return 'import';
}

async function handle(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  params: Params,
  upload: Upload | null,
) {
  const content = text(params, 'content');
  const importing = hasParam(params, 'data');
  const named = text(params, 'action') || (importing ? 'import' : 'export');
  request.operDetail = {
    action: `${content || '?'}.${named}`.slice(0, 20),
    target: `content=${content} action=${named}`,
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
      `${content ? `不支持 content=${content}` : '缺少参数 content'}，支持：${CONTENTS.join('、')}`,
    );
  }
  const format = choice(params, 'format', FORMATS, 'json');
  choice(params, 'returnFormat', FORMATS, 'json');
  const action = actionOf(params, content);
  if (action === 'delete' && content !== 'file') {
    throw new ApiRefusal(400, `content=${content} 不支持删除，只有 file 可以删除`);
  }
  // A wrong value is refused whatever the content (records read them again, exportCall and importCall).
  choice(params, 'type', ['flat', 'eav'] as const, 'flat');
  choice(params, 'rawOrLabel', ['raw', 'label'] as const, 'raw');
  const done = (target: string) => {
    request.operDetail = { ...request.operDetail, target: `content=${content} action=${action} ${target}` };
  };

  if (content === 'version') {
    done('');
    return reply.type('text/plain; charset=utf-8').send(REDCAP_VERSION);
  }
  const project = await loadProject(ctx, caller);
  switch (content) {
    case 'project':
      done('');
      return send(reply, format, projectInfoOf(project), undefined, 'project');
    case 'instrument': {
      const instruments = instrumentsOf(project);
      done(`count=${instruments.length}`);
      return send(reply, format, instruments, ['instrument_name', 'instrument_label'], 'instruments');
    }
    case 'file': {
      const address = fileAddress(params);
      done('count=1');
      if (action === 'export') {
        const { row, stream } = await exportFile(ctx, caller, project, address);
        // REDCap names the file in the content type (`; name="…"`), which its clients read.
        const name = encodeURIComponent(row.fileName).replace(/%20/g, ' ');
        return reply
          .headers(servingHeaders(row.contentType, row.fileName))
          .header('content-type', `${row.contentType}; name="${name}"`)
          .header('content-length', row.size)
          .send(stream);
      }
      if (action === 'delete') {
        await deleteFile(ctx, caller, project, address, text(params, 'reason') || null);
        return reply.type('text/plain; charset=utf-8').send('');
      }
      if (!upload) throw new ApiRefusal(400, '缺少要上传的文件（multipart 参数 file）');
      await importFile(ctx, caller, project, address, upload, text(params, 'reason') || null);
      return reply.type('text/plain; charset=utf-8').send('');
    }
    case 'exportFieldNames': {
      const only = text(params, 'field') || null;
      const names = exportFieldNamesOf(project, only);
      if (only && names.length === 0) throw new ApiRefusal(400, `字段 ${only} 不存在或无权查看`);
      done(`count=${names.length}`);
      return send(reply, format, names, ['original_field_name', 'choice_value', 'export_field_name'], 'fieldNames');
    }
    case 'metadata': {
      const selected = selectFields(project, list(params, 'fields'), list(params, 'forms'));
      const rows = metadataOf(project, selected);
      done(`count=${rows.length}`);
      return send(reply, format, rows, METADATA_KEYS, 'metadata');
    }
    case 'arm':
    case 'event':
    case 'formEventMapping': {
      const answer = longitudinalAnswer(project, content, list(params, 'arms'));
      done(`count=${answer.rows.length}`);
      return send(reply, format, answer.rows, answer.columns, answer.shape);
    }
    case 'record':
      break;
  }
  if (action === 'import') {
    const answer = await importCall(ctx, caller, project, params);
    done(`records=${answer.records} rows=${answer.rows}`);
    return reply.type(answer.contentType).send(answer.body);
  }
  const exported = await exportCall(ctx, caller, project, params, format);
  done(`records=${exported.records} rows=${exported.rows.length}`);
  if (exported.csv !== null) return reply.type('text/csv; charset=utf-8').send(exported.csv);
  return send(reply, format, exported.rows, exported.columns);
}
