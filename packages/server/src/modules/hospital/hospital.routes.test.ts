import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { callAs, matrixCallers, type Caller } from '../knowledge/content-test-kit.js';

let t: TestApp;
let admin: string;
let studyId: number;
let who: Record<Caller, string>;

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, studyId } = await openDemoStudy(t));
  who = await matrixCallers(t, admin, studyId, ['btn:project.department.manage'], '139000043');
});
afterAll(() => t.close());

const site = (over: Record<string, unknown> = {}) => ({
  studyId,
  name: '第一人民医院',
  introduction: '三级甲等综合医院，脊柱外科为省级重点专科。',
  address: '人民路1号',
  contact: '王护士',
  phone: '010-12345678',
  ...over,
});

describe('hospitals (/project/department: GET, POST, PUT)', () => {
  it('KNOW-01/KNOW-07: a member with 管理项目介绍 adds and edits the study sites; one name once per study', async () => {
    const made = await t.call(who.withKey, 'POST', '/api/v1/hospital', site());
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const twice = await t.call(who.withKey, 'POST', '/api/v1/hospital', site());
    expect(twice.status).toBe(409);
    expect(twice.body.msg).toBe('该医院已存在');
    const second = await t.call(who.withKey, 'POST', '/api/v1/hospital', site({ name: '第二医院', sort: 2 }));
    const renamed = await t.call(
      who.withKey,
      'PUT',
      `/api/v1/hospital/${second.body.data.id}`,
      site({ name: '第一人民医院' }),
    );
    expect(renamed.status).toBe(409);
    const edited = await t.call(
      who.withKey,
      'PUT',
      `/api/v1/hospital/${made.body.data.id}`,
      site({ address: '人民路2号' }),
    );
    expect(edited.body.data.address).toBe('人民路2号');
    const list = await t.call(who.withoutKey, 'GET', `/api/v1/hospital?studyId=${studyId}`);
    expect(list.body.data.map((h: { name: string }) => h.name)).toEqual(['第一人民医院', '第二医院']);
    expect((await callAs(t, '', 'GET', `/api/ignore/hospital?studyId=${studyId}`)).body.data).toHaveLength(2);
  });

  it('KNOW-07: permission matrix of every hospital call', async () => {
    const id = (await t.call(admin, 'POST', '/api/v1/hospital', site({ name: '矩阵医院' }))).body.data.id as number;
    const rows: Array<[string, string, (c: Caller) => unknown, Record<Caller, number>]> = [
      [
        'GET',
        `/api/v1/hospital?studyId=${studyId}`,
        () => undefined,
        { admin: 200, withKey: 200, withoutKey: 200, outsider: 403, anonymous: 401 },
      ],
      [
        'POST',
        '/api/v1/hospital',
        (c) => site({ name: `医院${c}` }),
        { admin: 200, withKey: 200, withoutKey: 403, outsider: 403, anonymous: 401 },
      ],
      [
        'PUT',
        `/api/v1/hospital/${id}`,
        () => site({ name: '矩阵医院' }),
        { admin: 200, withKey: 200, withoutKey: 403, outsider: 403, anonymous: 401 },
      ],
      [
        'GET',
        `/api/ignore/hospital?studyId=${studyId}`,
        () => undefined,
        { admin: 200, withKey: 200, withoutKey: 200, outsider: 200, anonymous: 200 },
      ],
    ];
    for (const [method, url, body, expected] of rows) {
      for (const caller of Object.keys(expected) as Caller[]) {
        const res = await callAs(t, who[caller], method, url, body(caller));
        expect(`${method} ${url} ${caller} ${res.status}`).toBe(`${method} ${url} ${caller} ${expected[caller]}`);
      }
    }
  });
});
