import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { queryRows } from '../db/client.js';
import { seedDemoStudy } from '../db/demo-study.js';
import { listenOnLoopback, rawSend, requestBytes, uncaughtDuring, type RawCall } from '../test/raw-http.js';
import { createTestApp, type TestApp } from '../test/test-app.js';
import { MAX_ROW_ID } from './ids.js';
import { MAX_BODY_DEPTH } from './input-bounds.js';

/**
 * Issue 9 "Bad input gets 4xx, never 500": every route of the OpenAPI document, called with
 * malformed variants of its path, query and body, answers 4xx and changes no row.
 */

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  format?: string;
  pattern?: string;
  default?: unknown;
}
interface Operation {
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: JsonSchema }>;
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}
interface Route {
  method: string;
  path: string;
  op: Operation;
}
interface Attempt {
  method: string;
  url: string;
  headers?: Record<string, string>;
  payload?: string | Buffer;
  what: string;
}

// Answers that legitimately record a rejected request: the operation log and rate-limit counters.
const UNCHECKED_TABLES = new Set(['oper_logs', 'kv_entries']);
// A variant that ended the session under test would turn every later answer into 401: last.
const LAST = 'POST /api/sys/logout';

const HUGE = 'x'.repeat(200_000);
const deep = (levels: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
};
const deepText = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

interface Bounds {
  types: Set<string>;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  enum?: unknown[];
}

/** The types a schema admits (through anyOf/oneOf and type lists) and its numeric and length bounds. */
function boundsOf(schema: JsonSchema | undefined, into: Bounds = { types: new Set() }): Bounds {
  if (!schema) return into;
  for (const alternative of schema.anyOf ?? schema.oneOf ?? []) boundsOf(alternative, into);
  for (const type of Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []) into.types.add(type);
  if (schema.const !== undefined) into.enum = [...(into.enum ?? []), schema.const];
  if (schema.enum) into.enum = [...(into.enum ?? []), ...schema.enum];
  if (schema.minimum !== undefined) into.minimum = schema.minimum;
  else if (schema.exclusiveMinimum !== undefined) into.minimum = schema.exclusiveMinimum + 1;
  if (schema.maximum !== undefined) into.maximum = schema.maximum;
  else if (schema.exclusiveMaximum !== undefined) into.maximum = schema.exclusiveMaximum - 1;
  if (schema.maxLength !== undefined) into.maxLength = schema.maxLength;
  return into;
}

const isNumeric = (b: Bounds) => b.types.has('integer') || b.types.has('number');

/** Numbers outside what the schema admits: the issue's ids (2^31, 99999999999, -1) and the schema's own bounds. */
function numberVariants(b: Bounds): number[] {
  const out = new Set<number>();
  if (b.maximum !== undefined) out.add(b.maximum + 1);
  // Always tried on integers: the static check above keeps every integer below 2^31.
  if (b.types.has('integer')) [2 ** 31, 99999999999].forEach((v) => out.add(v));
  if (b.minimum !== undefined) out.add(b.minimum - 1);
  if (b.minimum !== undefined && b.minimum >= 0) out.add(-1);
  if (b.types.has('integer') && !b.types.has('number')) out.add(1.5);
  return [...out].filter((v) => !b.enum || !b.enum.includes(v));
}

/** Text parameters (path or query) that no value of the parameter's schema can be. */
function textVariants(schema: JsonSchema | undefined): string[] {
  const b = boundsOf(schema);
  const out = ['a%00b', '%ED%A0%80', '%zz'];
  if (isNumeric(b)) out.push(...numberVariants(b).map(String), 'abc');
  else if (b.enum) out.push('not-an-option');
  else out.push('x'.repeat(Math.min(b.maxLength ?? 5000, 5000) + 1));
  return out;
}

/** Values put in one body field at a time, each outside what the field's schema admits. */
function fieldVariants(schema: JsonSchema | undefined): unknown[] {
  const b = boundsOf(schema);
  if (b.types.size === 0) return [deep(MAX_BODY_DEPTH + 1)];
  const out: unknown[] = [];
  if (isNumeric(b)) out.push(...numberVariants(b));
  if (b.types.has('string')) {
    out.push(b.enum ? 'not-an-option' : b.maxLength !== undefined ? 'x'.repeat(b.maxLength + 1) : HUGE);
  } else out.push('abc');
  if (!isNumeric(b)) out.push(12345);
  if (!b.types.has('object')) out.push({ a: 1 });
  else out.push(deep(MAX_BODY_DEPTH + 1));
  if (!b.types.has('array')) out.push([1]);
  else out.push(Array.from({ length: 20_000 }, () => 1));
  return out;
}

function typeOf(schema: JsonSchema | undefined): string | undefined {
  if (!schema) return undefined;
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return typeOf(alternatives.find((s) => s.type !== 'null') ?? alternatives[0]);
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== 'null');
  return schema.type;
}

/** A plausible value for a schema, so that one malformed field is the only thing wrong. */
function sample(schema: JsonSchema | undefined, name: string, ids: Record<string, number>): unknown {
  if (!schema) return 'x';
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return sample(alternatives.find((s) => s.type !== 'null') ?? alternatives[0], name, ids);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  switch (typeOf(schema) ?? '') {
    case 'integer':
    case 'number':
      return ids[name] ?? Math.max(schema.minimum ?? 1, 1);
    case 'boolean':
      return false;
    case 'array':
      return [sample(schema.items, name.replace(/s$/, ''), ids)];
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, prop] of Object.entries(schema.properties ?? {})) out[key] = sample(prop, key, ids);
      return out;
    }
    case 'string':
      if (schema.format === 'date' || /\\d\{4\}-\\d\{2\}/.test(schema.pattern ?? '')) return '2026-01-01';
      return 'x'.repeat(Math.max(schema.minLength ?? 1, 1));
    default:
      return 'x';
  }
}

// A PNG signature and header: enough for the upload's type check, so the file name reaches the database.
const PNG = Buffer.concat([
  Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex'),
  Buffer.alloc(64),
]);

function multipartAttempts(route: Route, ids: Record<string, number>): Attempt[] {
  const b = 'fuzzboundary';
  const part = (headers: string, body: string | Buffer) =>
    Buffer.concat([
      Buffer.from(`--${b}\r\n${headers}\r\n\r\n`),
      Buffer.isBuffer(body) ? body : Buffer.from(body),
      Buffer.from('\r\n'),
    ]);
  const end = Buffer.from(`--${b}--\r\n`);
  const type = { 'content-type': `multipart/form-data; boundary=${b}` };
  const at = (what: string, payload: Buffer | string, headers: Record<string, string> = type) => ({
    method: route.method,
    url: route.path,
    headers,
    payload,
    what: `multipart: ${what}`,
  });
  return [
    at('no boundary', 'abc', { 'content-type': 'multipart/form-data' }),
    at('empty boundary', 'abc', { 'content-type': 'multipart/form-data; boundary=' }),
    at('boundary too long', 'abc', { 'content-type': `multipart/form-data; boundary=${'b'.repeat(300)}` }),
    at('garbage', 'not a multipart body at all'),
    at(
      'truncated',
      Buffer.concat([
        part('content-disposition: form-data; name="studyId"', '1'),
        Buffer.from(`--${b}\r\ncontent-disposition: form-da`),
      ]),
    ),
    at('part without name', Buffer.concat([part('content-disposition: form-data', 'value'), end])),
    at('header without colon', Buffer.concat([part('content-disposition form-data; name="x"', 'v'), end])),
    at(
      'NUL in a field',
      Buffer.concat([
        part('content-disposition: form-data; name="studyId"', '1\u0000'),
        part('content-disposition: form-data; name="values"', '{"a":"b\\u0000"}'),
        end,
      ]),
    ),
    at(
      'lone surrogate in a field',
      Buffer.concat([part('content-disposition: form-data; name="values"', '{"a":"\\ud800"}'), end]),
    ),
    at(
      'NUL in a file name',
      Buffer.concat([
        part('content-disposition: form-data; name="studyId"', String(ids.studyId)),
        part('content-disposition: form-data; name="file"; filename="a\u0000.png"\r\ncontent-type: image/png', PNG),
        end,
      ]),
    ),
    at('deep values', Buffer.concat([part('content-disposition: form-data; name="values"', deepText(5000)), end])),
    at('wrong content type', '{}', { 'content-type': 'application/xml' }),
  ];
}

/**
 * A route's address with plausible path and query values, and how to build it with other values; `requiredOnly`
 * leaves out optional query parameters (a request meant to pass validation).
 */
function addressOf(route: Route, ids: Record<string, number>, requiredOnly = false) {
  const params = (route.op.parameters ?? []).filter((p) => !requiredOnly || p.in !== 'query' || p.required);
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const pathValues = Object.fromEntries(pathParams.map((p) => [p.name, String(sample(p.schema, p.name, ids))]));
  const queryValues = Object.fromEntries(queryParams.map((p) => [p.name, String(sample(p.schema, p.name, ids))]));
  const urlOf = (path: Record<string, string>, query: Record<string, string>) => {
    const filled = route.path.replace(/\{(\w+)\}/g, (_, name: string) => path[name] ?? '1');
    const qs = Object.entries(query)
      .map(([k, v]) => `${k}=${v.includes('%') ? v : encodeURIComponent(v)}`)
      .join('&');
    return qs ? `${filled}?${qs}` : filled;
  };
  return { pathParams, queryParams, pathValues, queryValues, urlOf, url: urlOf(pathValues, queryValues) };
}

function attemptsFor(route: Route, ids: Record<string, number>): Attempt[] {
  const { pathParams, queryParams, pathValues, queryValues, urlOf, url } = addressOf(route, ids);
  const out: Attempt[] = [];
  for (const p of pathParams) {
    for (const v of textVariants(p.schema)) {
      out.push({
        method: route.method,
        url: urlOf({ ...pathValues, [p.name]: v }, queryValues),
        what: `path ${p.name}=${v.slice(0, 20)}`,
      });
    }
  }
  for (const p of queryParams) {
    for (const v of textVariants(p.schema)) {
      out.push({
        method: route.method,
        url: urlOf(pathValues, { ...queryValues, [p.name]: v }),
        what: `query ${p.name}=${v.slice(0, 20)}`,
      });
    }
  }
  const content = route.op.requestBody?.content ?? {};
  const json = content['application/json']?.schema;
  if (content['multipart/form-data'] || MULTIPART_ROUTES.has(`${route.method} ${route.path}`)) {
    out.push(...multipartAttempts({ ...route, path: url }, ids));
  }
  // A write without a documented JSON body still gets the body-level variants: its handler reads the body by hand.
  const bodySchema =
    json ?? (['POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method) ? { type: 'object' } : undefined);
  if (bodySchema) {
    const base = sample(bodySchema, '', ids);
    const jsonAt = (what: string, payload: string, type = 'application/json') => ({
      method: route.method,
      url,
      headers: { 'content-type': type },
      payload,
      what,
    });
    if (base && typeof base === 'object' && !Array.isArray(base)) {
      for (const [key, prop] of Object.entries(json?.properties ?? {})) {
        for (const v of fieldVariants(prop)) {
          out.push(jsonAt(`body ${key}=${JSON.stringify(v).slice(0, 20)}`, JSON.stringify({ ...base, [key]: v })));
        }
      }
    }
    const isObject = typeOf(bodySchema) === 'object';
    // Body-level variants: each is refused by the JSON parser or by the body's type, whatever the fields.
    const withExtra = (key: string, value: string) => {
      if (!isObject) return `[${value}]`;
      const rest = JSON.stringify(base).slice(1);
      return `{${JSON.stringify(key)}:${value}${rest === '}' ? '}' : `,${rest}`}`;
    };
    out.push(
      jsonAt('invalid JSON', '{"a":'),
      jsonAt('empty JSON', ''),
      jsonAt('NUL in a value', withExtra('x', '"a\\u0000b"')),
      jsonAt('NUL in a key', isObject ? JSON.stringify({ ...(base as object), ['a\u0000']: 1 }) : '[{"a\\u0000":1}]'),
      jsonAt('lone high surrogate', withExtra('y', '"\\ud800"')),
      jsonAt('lone low surrogate', withExtra('y', '"x\\udc00"')),
      jsonAt('5000 levels deep', deepText(5000)),
      jsonAt(`${MAX_BODY_DEPTH + 1} levels deep`, deepText(MAX_BODY_DEPTH + 1)),
      jsonAt('prototype pollution', '{"__proto__":{"admin":true}}'),
    );
    // Without a documented body these could be a valid request: only what the parser refuses is sent.
    if (json) {
      out.push(
        jsonAt(isObject ? 'array instead of object' : 'object instead of array', isObject ? '[1,2,3]' : '{"a":1}'),
        jsonAt('null body', 'null'),
        jsonAt('wrong content type', 'abc', 'text/plain'),
        jsonAt('unknown content type', '<a/>', 'application/xml'),
      );
    }
  }
  return out;
}

// Routes that read form data by hand (no body schema in the document).
const MULTIPART_ROUTES = new Set([
  'POST /api/common/file/upload',
  'POST /api/v1/business/crf/print/temp',
  'PUT /api/v1/business/crf/print/temp',
  'PUT /api/v3/business/crf',
  'POST /api/system/crf',
  'POST /api/system/crf/multi',
  'POST /api/redcap',
  'POST /api/business/import/multi_crf_sheet/multi_thread',
  'POST /api/v1/content/image',
  'POST /spine_cobb/v2/getprediction',
]);
// Routes whose callers authenticate in the body (a REDCap API token): their 401 is an answer, not a lost session.
const OWN_CREDENTIALS = new Set(['POST /api/redcap']);

/** The demo study with one patient: the administrator's token, the patient's code; the ids requests name. */
async function openFuzzStudy(t: TestApp, ids: Record<string, number>) {
  await seedDemoStudy(t.db);
  const token = (await t.login()).token;
  const studies = await t.call(token, 'GET', '/api/business/study/list');
  const studyId = studies.body.data.list[0].id as number;
  const added = await t.call(token, 'POST', '/api/business/subject', {
    studyId,
    subjectName: '模糊测试',
    gender: 1,
    diseaseCode: 'LSS',
  });
  expect(added.status).toBe(200);
  const records = await t.call(token, 'GET', `/api/v1/business/subjectRecord/list?studyId=${studyId}`);
  const record = records.body.data.list[0];
  const [crf] = await queryRows<{ id: number }>(
    t.db,
    sql`select id from crfs where study_id = ${studyId} order by id limit 1`,
  );
  Object.assign(ids, {
    studyId,
    id: studyId,
    subjectRecordId: record.subjectRecordId ?? record.id,
    subjectId: record.subjectId ?? 1,
    crfId: crf!.id,
  });
  return { token, code: added.body.data.identificationCode as string };
}

const documentOf = (t: TestApp) => t.app.swagger() as unknown as { paths: Record<string, Record<string, Operation>> };

/** Row count and content hash of every table, so any change anywhere is seen. */
async function tableChecksums(t: TestApp): Promise<Record<string, string>> {
  const tables = await queryRows<{ table_name: string }>(
    t.db,
    sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`,
  );
  const out: Record<string, string> = {};
  for (const { table_name: name } of tables) {
    if (UNCHECKED_TABLES.has(name) || name.startsWith('__drizzle')) continue;
    const [row] = await queryRows<{ n: string; h: string | null }>(
      t.db,
      sql`select count(*)::text as n, md5(string_agg(md5(r::text), '' order by md5(r::text))) as h from ${sql.identifier(name)} r`,
    );
    out[name] = `${row!.n}:${row!.h ?? ''}`;
  }
  return out;
}

describe('malformed input on every route (issue 9: bad input gets 4xx, never 500)', () => {
  let t: TestApp;
  let token: string;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    t = await createTestApp();
    ({ token } = await openFuzzStudy(t, ids));
  });
  afterAll(() => t?.close());

  const documented = () => documentOf(t);

  it('bounds every integer a request takes to the integer column (ids < 2^31)', () => {
    const unbounded: string[] = [];
    const walk = (s: JsonSchema | undefined, where: string, seen: number) => {
      if (!s || seen > 40) return;
      const types = Array.isArray(s.type) ? s.type : [s.type];
      if (types.includes('integer') && !((s.maximum ?? s.exclusiveMaximum ?? Infinity) <= MAX_ROW_ID + 1)) {
        unbounded.push(where);
      }
      for (const [key, prop] of Object.entries(s.properties ?? {})) walk(prop, `${where}.${key}`, seen + 1);
      for (const alternative of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) walk(alternative, where, seen + 1);
      walk(s.items, `${where}[]`, seen + 1);
    };
    for (const [path, methods] of Object.entries(documented().paths)) {
      for (const [method, op] of Object.entries(methods)) {
        for (const p of op.parameters ?? []) walk(p.schema, `${method.toUpperCase()} ${path} ${p.in} ${p.name}`, 0);
        for (const [type, content] of Object.entries(op.requestBody?.content ?? {})) {
          walk(content.schema, `${method.toUpperCase()} ${path} body(${type})`, 0);
        }
      }
    }
    expect(unbounded).toEqual([]);
  });

  it('answers every malformed variant of every documented route with 4xx and changes no row', async () => {
    const doc = documented();
    const routes: Route[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (!['get', 'post', 'put', 'delete', 'patch'].includes(method)) continue;
        routes.push({ method: method.toUpperCase(), path, op });
      }
    }
    routes.sort((a, b) => Number(`${a.method} ${a.path}` === LAST) - Number(`${b.method} ${b.path}` === LAST));
    expect(routes.length).toBeGreaterThan(100);
    const saveRoute = doc.paths['/api/v3/business/crf']?.put;
    expect(saveRoute?.requestBody?.content?.['application/json']?.schema?.properties).toHaveProperty('values');

    // Reactions to the setup's own changes (enrolment events) are delivered first: their delivery rows must not
    // count as a change made by the fuzzing.
    await t.ctx.events.drain();
    const before = await tableChecksums(t);
    const failures: string[] = [];
    // Writes that were accepted: where to look when a table changed.
    const accepted: string[] = [];
    let sent = 0;
    for (const route of routes) {
      for (const attempt of attemptsFor(route, ids)) {
        const res = await t.app.inject({
          method: attempt.method as 'GET',
          url: attempt.url,
          headers: { authorization: `Bearer ${token}`, ...attempt.headers },
          ...(attempt.payload !== undefined ? { payload: attempt.payload } : {}),
        });
        sent++;
        // A 401 outside sign-in means a variant ended the session: every later answer would be hollow.
        const lostSession =
          res.statusCode === 401 &&
          !route.path.startsWith('/api/ignore/') &&
          !OWN_CREDENTIALS.has(`${route.method} ${route.path}`);
        if (res.statusCode >= 500 || lostSession) {
          failures.push(`${res.statusCode} ${route.method} ${route.path} — ${attempt.what}: ${res.body.slice(0, 160)}`);
        } else if (res.statusCode < 400 && attempt.method !== 'GET') {
          accepted.push(`${res.statusCode} ${route.method} ${route.path} — ${attempt.what}`);
        }
      }
    }
    const after = await tableChecksums(t);
    const changed = Object.keys(before).filter((name) => before[name] !== after[name]);
    console.info(`fuzz: ${sent} requests over ${routes.length} routes`);
    expect(failures).toEqual([]);
    expect(changed, `accepted writes:\n${accepted.join('\n')}`).toEqual([]);
  }, 600_000);
});

/**
 * What app.inject cannot send: bodies cut before their closing boundary and bodies trickled in, over a real
 * socket, several at once, to every route that takes an upload. Eight such bodies killed the embedded server (an
 * error emitted on a stream nobody listened on) or, on PostgreSQL, left their requests waiting forever.
 */
describe('truncated and slow multipart bodies over a socket, to every upload route', () => {
  const timeouts = { headersMs: 5_000, requestMs: 1_000, uploadMs: 1_500, idleMs: 10_000 };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-fuzz-uploads-'));
  const ids: Record<string, number> = {};
  let t: TestApp;
  let port: number;
  let token: string;
  let code: string;
  let apiToken: string;

  beforeAll(async () => {
    t = await createTestApp({ config: { dataDir, httpTimeouts: timeouts } });
    ({ token, code } = await openFuzzStudy(t, ids));
    const created = await t.call(token, 'POST', '/api/system/user/profile/apiToken', { studyId: ids.studyId });
    expect(created.status).toBe(200);
    apiToken = created.body.data.token as string;
    port = await listenOnLoopback(t.app);
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** Every route that reads a multipart body: documented as such, or read by hand. */
  function uploadRoutes(): Route[] {
    const routes: Route[] = [];
    for (const [path, methods] of Object.entries(documentOf(t).paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const key = `${method.toUpperCase()} ${path}`;
        if (op.requestBody?.content?.['multipart/form-data'] || MULTIPART_ROUTES.has(key)) {
          routes.push({ method: method.toUpperCase(), path, op });
        }
      }
    }
    return routes;
  }

  /**
   * The route's parameters (for the REDCap API those of a file import, so the file is streamed to storage), then a
   * file part that never reaches its closing boundary.
   */
  function cutBody(route: Route): Buffer {
    const b = 'cutboundary';
    const fields: Record<string, string> =
      route.path === '/api/redcap'
        ? { token: apiToken, content: 'file', action: 'import', record: code, field: 'lab_report' }
        : { studyId: String(ids.studyId) };
    const file = route.path === '/spine_cobb/v2/getprediction' ? 'image' : 'file';
    const text =
      Object.entries(fields)
        .map(([name, value]) => `--${b}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
        .join('') +
      `--${b}\r\ncontent-disposition: form-data; name="${file}"; filename="a.png"\r\ncontent-type: image/png\r\n\r\n`;
    return Buffer.concat([Buffer.from(text), PNG, Buffer.alloc(4096, 7)]);
  }

  const send = (route: Route, body: Buffer, contentLength: number, then: 'end' | 'stay' | 'trickle'): RawCall =>
    rawSend(
      port,
      requestBytes(
        route.method,
        addressOf(route, ids, true).url,
        { authorization: `Bearer ${token}`, 'content-type': 'multipart/form-data; boundary=cutboundary' },
        body,
        contentLength,
      ),
      then,
    );

  async function serves() {
    const res = await fetch(`http://127.0.0.1:${port}/api/business/study/list`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
  }

  /** Files under the upload directory, finished or partial: a cut upload leaves none. */
  const filesOnDisk = () =>
    fs.existsSync(path.join(dataDir, 'files'))
      ? fs.readdirSync(path.join(dataDir, 'files'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
      : [];
  const storedRows = async () =>
    (await queryRows<{ n: string }>(t.db, sql`select count(*)::text as n from stored_files`))[0]!.n;

  it('eight cut bodies at once to each upload route are answered 4xx or closed, and the server lives and keeps nothing', async () => {
    const routes = uploadRoutes();
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining(['POST /api/common/file/upload', 'POST /api/redcap']),
    );
    const rowsBefore = await storedRows();
    const failures: string[] = [];
    const tally: Record<string, number> = {};
    const { uncaught } = await uncaughtDuring(async () => {
      for (const route of routes) {
        const body = cutBody(route);
        const calls = [
          // The whole body as announced, but no closing boundary.
          ...Array.from({ length: 8 }, () => send(route, body, body.length, 'stay')),
          // Less than announced, then the client closes its side.
          ...Array.from({ length: 8 }, () => send(route, body, body.length + 65_536, 'end')),
        ];
        for (const [i, exchange] of (await Promise.all(calls.map((c) => c.done))).entries()) {
          const answer = exchange.status === null ? 'closed' : String(exchange.status);
          tally[answer] = (tally[answer] ?? 0) + 1;
          if (exchange.status !== null && (exchange.status < 400 || exchange.status >= 500)) {
            failures.push(`${route.method} ${route.path} (${i < 8 ? 'no boundary' : 'cut'}): ${exchange.text}`);
          }
        }
      }
      await serves();
    });
    console.info(
      `cut multipart bodies: ${routes.map((r) => `${r.method} ${r.path}`).join(', ')} × 16: ${JSON.stringify(tally)}`,
    );
    expect(uncaught.map(String)).toEqual([]);
    expect(failures).toEqual([]);
    expect(await storedRows()).toBe(rowsBefore);
    // A connection closed by the client is answered at once; its handler removes what it stored just after.
    await vi.waitFor(() => expect(filesOnDisk()).toEqual([]));
  }, 120_000);

  it('a multipart body trickled in to each upload route is cut at the upload timeout, and the server lives', async () => {
    const routes = uploadRoutes();
    const { result: exchanges, uncaught } = await uncaughtDuring(async () => {
      const calls = routes.map((route) => send(route, cutBody(route), 10_000_000, 'trickle'));
      const answers = await Promise.all(calls.map((c) => c.done));
      await serves();
      return answers;
    });
    const answers = Object.fromEntries(routes.map((r, i) => [`${r.method} ${r.path}`, exchanges[i]!.status]));
    expect(uncaught.map(String)).toEqual([]);
    // The streaming receivers were still reading when the time ran out.
    expect(answers).toMatchObject({ 'POST /api/common/file/upload': 408, 'POST /api/redcap': 408 });
    // Elsewhere the same, or a refusal (4xx) before the body was read; never a 5xx, never left open.
    for (const [route, status] of Object.entries(answers)) {
      expect(status === null || (status >= 400 && status < 500), `${route}: ${status}`).toBe(true);
    }
    await vi.waitFor(() => expect(filesOnDisk()).toEqual([]));
  }, 60_000);
});
