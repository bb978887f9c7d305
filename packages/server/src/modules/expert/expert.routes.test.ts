import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experts } from '../../db/schema/index.js';
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
  who = await matrixCallers(t, admin, studyId, ['btn:project.expert.manage'], '139000042');
});
afterAll(() => t.close());

const doctor = (over: Record<string, unknown> = {}) => ({
  studyId,
  name: '张明',
  title: '主任医师',
  hospital: '第一人民医院',
  department: '脊柱外科',
  specialty: '腰椎管狭窄症的微创手术',
  introduction: '从事脊柱外科临床工作二十年。',
  ...over,
});

describe('experts (/project/expert: create, read, update, delete)', () => {
  it('KNOW-01/KNOW-06: a member with 管理医生 adds, edits and deletes a doctor; the list is paged and searchable', async () => {
    const made = await t.call(who.withKey, 'POST', '/api/v1/expert', doctor());
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body.msg).toBe('新增成功');
    await t.call(
      who.withKey,
      'POST',
      '/api/v1/expert',
      doctor({ name: '李华', department: '骨科', specialty: '关节' }),
    );
    const page = await t.call(who.withoutKey, 'GET', `/api/v1/experts?studyId=${studyId}&pageSize=1`);
    expect(page.body.data.total).toBe(2);
    expect(page.body.data.list).toHaveLength(1);
    const found = await t.call(who.withoutKey, 'GET', `/api/v1/experts?studyId=${studyId}&keyword=脊柱`);
    expect(found.body.data.list.map((e: { name: string }) => e.name)).toEqual(['张明']);
    const id = made.body.data.id as number;
    const edited = await t.call(who.withKey, 'PUT', `/api/v1/expert/${id}`, doctor({ title: '副主任医师' }));
    expect(edited.body.data.title).toBe('副主任医师');
    expect((await t.call(who.withoutKey, 'GET', `/api/v1/expert/${id}?studyId=${studyId}`)).body.data.name).toBe(
      '张明',
    );
    // Patients read the list without signing in.
    const open = await callAs(t, '', 'GET', `/api/ignore/experts?studyId=${studyId}`);
    expect(open.body.data.total).toBe(2);
    expect((await t.call(who.withKey, 'DELETE', `/api/v1/expert/${id}?studyId=${studyId}`)).status).toBe(200);
    expect((await t.call(admin, 'GET', `/api/v1/expert/${id}?studyId=${studyId}`)).status).toBe(404);
    expect((await t.db.select().from(experts)).map((e) => e.name)).toEqual(['李华']);
  });

  it('KNOW-06: a photo must be a stored content picture; names are required', async () => {
    const noPhoto = await t.call(admin, 'POST', '/api/v1/expert', doctor({ photoKey: '0'.repeat(32) }));
    expect(noPhoto.body.msg).toBe('照片不存在');
    const noName = await t.call(admin, 'POST', '/api/v1/expert', doctor({ name: ' ' }));
    expect(noName.status).toBe(400);
    expect(noName.body.msg).toBe('请输入姓名');
  });

  it('KNOW-06: permission matrix of every expert call', async () => {
    const id = (await t.call(admin, 'POST', '/api/v1/expert', doctor({ name: '矩阵' }))).body.data.id as number;
    const rows: Array<[string, string, unknown, Record<Caller, number>]> = [
      [
        'GET',
        `/api/v1/experts?studyId=${studyId}`,
        undefined,
        { admin: 200, withKey: 200, withoutKey: 200, outsider: 403, anonymous: 401 },
      ],
      [
        'GET',
        `/api/v1/expert/${id}?studyId=${studyId}`,
        undefined,
        { admin: 200, withKey: 200, withoutKey: 200, outsider: 403, anonymous: 401 },
      ],
      [
        'POST',
        '/api/v1/expert',
        doctor(),
        { admin: 200, withKey: 200, withoutKey: 403, outsider: 403, anonymous: 401 },
      ],
      [
        'PUT',
        `/api/v1/expert/${id}`,
        doctor(),
        { admin: 200, withKey: 200, withoutKey: 403, outsider: 403, anonymous: 401 },
      ],
      [
        'GET',
        `/api/ignore/experts?studyId=${studyId}`,
        undefined,
        { admin: 200, withKey: 200, withoutKey: 200, outsider: 200, anonymous: 200 },
      ],
      [
        'DELETE',
        `/api/v1/expert/${id}?studyId=${studyId}`,
        undefined,
        { anonymous: 401, outsider: 403, withoutKey: 403, withKey: 200, admin: 404 },
      ],
    ];
    for (const [method, url, body, expected] of rows) {
      for (const caller of Object.keys(expected) as Caller[]) {
        const res = await callAs(t, who[caller], method, url, body);
        expect(`${method} ${url} ${caller} ${res.status}`).toBe(`${method} ${url} ${caller} ${expected[caller]}`);
      }
    }
  });
});
