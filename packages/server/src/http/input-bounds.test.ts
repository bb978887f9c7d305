import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoStudy } from '../db/demo-study.js';
import { departments, storedFiles } from '../db/schema/index.js';
import { multipart } from '../test/multipart.js';
import { createTestApp, type TestApp } from '../test/test-app.js';
import { MAX_ROW_ID } from './ids.js';
import { MALFORMED_MSG, MAX_BODY_DEPTH, inputProblem, isStorableText } from './input-bounds.js';

const nested = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

describe('input bounds (pure)', () => {
  it('measures depth without recursion: the root is level 1, 32 pass, 33 and a million do not', () => {
    expect(inputProblem(JSON.parse(nested(MAX_BODY_DEPTH)))).toBeNull();
    expect(inputProblem(JSON.parse(nested(MAX_BODY_DEPTH + 1)))).toBe('depth');
    const deep = JSON.parse('['.repeat(1_000_000) + ']'.repeat(1_000_000)) as unknown;
    expect(inputProblem(deep)).toBe('depth');
  });

  it('refuses NUL and unpaired surrogates in values and keys, keeps paired ones and buffers', () => {
    expect(isStorableText('病历 😀')).toBe(true);
    for (const bad of ['a\u0000b', 'a\ud800', '\udc00b', 'x\ud800\ud800']) expect(isStorableText(bad)).toBe(false);
    expect(inputProblem({ list: [{ note: 'a\u0000' }] })).toBe('text');
    expect(inputProblem({ ['k\ud800']: 1 })).toBe('text');
    expect(inputProblem({ file: Buffer.from([0, 0xed, 0xa0, 0x80]) })).toBeNull();
  });
});

describe('issue 9: bad input gets 4xx before any handler', () => {
  let t: TestApp;
  let token: string;
  // A data directory of its own, so the files written (or not) by uploads can be counted.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-bounds-'));
  beforeAll(async () => {
    t = await createTestApp({ config: { dataDir } });
    token = (await t.login()).token;
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const send = (method: string, url: string, payload?: string, type = 'application/json') =>
    t.app.inject({
      method: method as 'POST',
      url,
      headers: { authorization: `Bearer ${token}`, 'content-type': type },
      ...(payload !== undefined ? { payload } : {}),
    });
  const deptCount = async () => (await t.db.select({ n: count() }).from(departments))[0]!.n;

  it('a body 5,000 levels deep is refused with 400 请求内容格式不正确 and creates nothing', async () => {
    const before = await deptCount();
    const res = await send('POST', '/api/system/dept', `{"deptName":"深层","parentId":0,"x":${nested(5000)}}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: 400, msg: MALFORMED_MSG, data: null });
    expect(await deptCount()).toBe(before);
  });

  it('NUL bytes and lone surrogates in JSON values or keys are refused with 400 (sign-in included)', async () => {
    const before = await deptCount();
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/ignore/sys/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"username":"a\\u0000b","password":"x"}',
    });
    expect(login.statusCode).toBe(400);
    expect(login.json().msg).toBe(MALFORMED_MSG);
    for (const body of [
      '{"deptName":"a\\u0000b","parentId":0}',
      '{"deptName":"a\\ud800","parentId":0}',
      '{"deptName":"a","parentId":0,"k\\u0000":1}',
      '{"deptName":"\\udc00","parentId":0}',
    ]) {
      const res = await send('POST', '/api/system/dept', body);
      expect(res.statusCode, body).toBe(400);
      expect(res.json().msg).toBe(MALFORMED_MSG);
    }
    expect(await deptCount()).toBe(before);
  });

  it('NUL and broken escapes in query strings and paths are refused with 400', async () => {
    for (const url of [
      '/api/system/dept/list?deptName=a%00b',
      '/api/system/dept/list?deptName=%ED%A0%80',
      '/api/system/dept/list?deptName=%zz',
      '/api/v1/base/sysconfig/getbasesysconfiglist?key=a%00',
    ]) {
      const res = await send('GET', url);
      expect(res.statusCode, url).toBe(400);
    }
  });

  it('ids outside the integer column are 400, never 500: GET /api/business/subject/99999999999', async () => {
    for (const id of ['99999999999', String(MAX_ROW_ID + 1), '-1', '0', 'abc', '1.5']) {
      const res = await send('GET', `/api/business/subject/${id}`);
      expect(res.statusCode, id).toBe(400);
      expect(res.json().msg, id).toBe('请求参数错误');
    }
    // The largest id is valid: no such patient, so the study guard refuses it.
    expect((await send('GET', `/api/business/subject/${MAX_ROW_ID}`)).statusCode).toBe(403);
    const body = await send('PUT', '/api/system/dept', JSON.stringify({ deptId: 2 ** 31, deptName: 'x', parentId: 0 }));
    expect(body.statusCode).toBe(400);
  });

  it('malformed form data on the form save and the uploads is 400, never 500', async () => {
    const b = 'xyz';
    const truncated = `--${b}\r\ncontent-disposition: form-data; name="subjectRecordId"\r\n\r\n1\r\n--${b}\r\ncontent-disp`;
    const cases: Array<[string, string, string, string]> = [
      ['PUT', '/api/v3/business/crf', truncated, `multipart/form-data; boundary=${b}`],
      ['PUT', '/api/v3/business/crf', 'abc', 'multipart/form-data'],
      [
        'PUT',
        '/api/v3/business/crf',
        `--${b}\r\ncontent-disposition: form-data; name="values"\r\n\r\n${nested(100)}\r\n--${b}--\r\n`,
        `multipart/form-data; boundary=${b}`,
      ],
      ['POST', '/api/common/file/upload?studyId=1', truncated, `multipart/form-data; boundary=${b}`],
      ['POST', '/api/system/crf', 'garbage', `multipart/form-data; boundary=${b}`],
      ['POST', '/api/system/crf/multi', 'abc', `multipart/form-data; boundary=${'b'.repeat(300)}`],
    ];
    for (const [method, url, payload, type] of cases) {
      const res = await send(method, url, payload, type);
      expect(res.statusCode, `${method} ${url} ${payload.slice(0, 30)}`).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, `${method} ${url} ${payload.slice(0, 30)}`).toBeLessThan(500);
    }
  });

  it('the form save documents its body in the OpenAPI document (CRF-22)', () => {
    const doc = t.app.swagger() as {
      paths: Record<
        string,
        Record<
          string,
          { requestBody?: { content: Record<string, { schema: { properties?: object; required?: string[] } }> } }
        >
      >;
    };
    const schema = doc.paths['/api/v3/business/crf']!.put!.requestBody!.content['application/json']!.schema;
    expect(Object.keys(schema.properties ?? {})).toEqual([
      'subjectRecordId',
      'crfId',
      'crfDataRecordId',
      'version',
      'values',
      'submit',
      'reason',
      'requestId',
      'followRecordCrfId',
      'missing',
    ]);
    expect(schema.required).toEqual(expect.arrayContaining(['subjectRecordId', 'crfId', 'values']));
  });

  it('an upload whose file name holds a NUL is 400 before anything is stored, on disk or in the database', async () => {
    await seedDemoStudy(t.db);
    const studies = await t.call(token, 'GET', '/api/business/study/list');
    const studyId = studies.body.data.list[0].id as number;
    const png = Buffer.concat([
      Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex'),
      Buffer.alloc(64),
    ]);
    const filesOnDisk = () => (fs.existsSync(dataDir) ? fs.readdirSync(dataDir, { recursive: true }).length : 0);
    const before = filesOnDisk();
    const form = multipart({}, [{ fileName: 'x\u0000.png', data: png, type: 'image/png' }]);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/common/file/upload?studyId=${studyId}`,
      headers: { authorization: `Bearer ${token}`, ...form.headers },
      payload: form.payload,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().msg).toBe(MALFORMED_MSG);
    expect((await t.db.select({ n: count() }).from(storedFiles))[0]!.n).toBe(0);
    expect(filesOnDisk()).toBe(before);
  });
});
