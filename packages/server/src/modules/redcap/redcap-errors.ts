// How the REDCap API answers what it refuses: REDCap's error bodies in REDCap's format, with a status.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiRefusal } from './api-token.service.js';
import { paramsOf, text, type Params } from './redcap-params.js';

export type Format = 'json' | 'csv' | 'xml';
export const FORMATS = ['json', 'csv', 'xml'] as const;

/**
 * The format of what REDCap writes itself (errors, an import's count or ids): `returnFormat`, else the call's
 * `format`, else XML, REDCap's default. Clients read it that way: PyCap takes a call with neither for XML and
 * looks for `<error>` in it (a file export carries no format).
 */
export function answerFormat(params: Params): Format {
  for (const name of ['returnFormat', 'format']) {
    const v = text(params, name);
    if ((FORMATS as readonly string[]).includes(v)) return v as Format;
  }
  return 'xml';
}

/** One refused value of an import, as REDCap reports it: the record, the field, the value and why. */
export interface ValueProblem {
  record: string;
  field: string;
  value: string;
  message: string;
}

const quoted = (v: string) => `"${v.replace(/"/g, '""')}"`;

/**
 * The refused values of an import, one REDCap line each (`"record","field","value","message"`) in the error
 * text, all of them at once as REDCap lists them; nothing was written.
 */
export class ValueProblems extends ApiRefusal {
  constructor(readonly problems: readonly ValueProblem[]) {
    super(400, problems.map((p) => [p.record, p.field, p.value, p.message].map(quoted).join(',')).join('\n'));
  }

  /** For the operation log, which never holds a value: how many, and the fields. */
  get logged(): string {
    const fields = [...new Set(this.problems.map((p) => p.field))].join(', ');
    return `导入数据中有 ${this.problems.length} 个值不符合要求（字段：${fields}）`;
  }
}

/** Characters XML 1.0 cannot hold at all (not even escaped). */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;
const xmlText = (v: string) =>
  v.replace(NOT_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** REDCap's XML error, byte for byte as REDCap writes it. */
export const xmlError = (message: string) =>
  `<?xml version="1.0" encoding="UTF-8" ?>\n<hash>\n  <error>${xmlText(message)}</error>\n</hash>`;

/**
 * An error as REDCap answers it, with its status: `{"error": "…"}`, `ERROR: …` for csv (the prefix REDCap's
 * clients look for), REDCap's `<hash><error>…</error></hash>` for xml. Never a file: a failed file export is
 * not saved by a client as the file it asked for.
 */
export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  message: string,
  logged = message,
) {
  const format = answerFormat(paramsOf(request));
  request.operDetail = { ...request.operDetail, error: logged };
  reply.removeHeader('content-disposition');
  reply.removeHeader('content-length');
  reply.status(status);
  if (format === 'csv') return reply.type('text/plain; charset=utf-8').send(`ERROR: ${message}`);
  if (format === 'xml') return reply.type('text/xml; charset=utf-8').send(xmlError(message));
  return reply.type('application/json; charset=utf-8').send(JSON.stringify({ error: message }));
}
