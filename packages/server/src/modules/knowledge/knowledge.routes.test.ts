import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knowledgeArticles } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { multipart } from '../../test/multipart.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { callAs, matrixCallers, type Caller } from './content-test-kit.js';

// A 1×1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

let t: TestApp;
let admin: string;
let studyId: number;
let who: Record<Caller, string>;
let typeId: number;

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, studyId } = await openDemoStudy(t));
  who = await matrixCallers(t, admin, studyId, ['btn:project.knowledge.manage'], '139000041');
  typeId = (await t.call(admin, 'GET', '/api/v1/knowledge/types')).body.data[0].id;
});
afterAll(() => t.close());

const article = (over: Record<string, unknown> = {}) => ({
  studyId,
  typeId,
  title: '腰椎术后康复',
  content: '<p>术后第一天即可<strong>下床</strong>。</p><script>alert(1)</script>',
  status: 'draft',
  ...over,
});

async function upload(token: string) {
  const body = multipart({}, [{ fileName: 'cover.png', data: PNG, type: 'image/png' }]);
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/v1/content/image?studyId=${studyId}`,
    headers: { ...body.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    payload: body.payload,
  });
  return { status: res.statusCode, body: res.json() as { code: number; msg: string; data: any } };
}

describe('knowledge base (/api/v1/knowledge, /api/v1/knowledges, types)', () => {
  it('KNOW-01/KNOW-04: the default types are there; an editor writes an article, the HTML is sanitised on the server', async () => {
    const types = (await t.call(who.withoutKey, 'GET', '/api/v1/knowledge/types')).body.data;
    expect(types.map((x: { name: string }) => x.name)).toEqual(['疾病知识', '用药指导', '康复护理', '饮食营养']);
    const created = await t.call(who.withKey, 'POST', '/api/v1/knowledge', article());
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.data.content).toBe('<p>术后第一天即可<strong>下床</strong>。</p>');
    expect(created.body.data.summary).toBe('术后第一天即可下床。');
    const [row] = await t.db.select().from(knowledgeArticles).where(eq(knowledgeArticles.id, created.body.data.id));
    expect(row!.content).not.toContain('script');
    expect(row!.studyId).toBe(studyId);
    expect(row!.publishedAt).toBeNull();
  });

  it('KNOW-04: drafts stay off the public list; published articles are paged and searchable there, without sign-in', async () => {
    const cover = await upload(who.withKey);
    expect(cover.status, JSON.stringify(cover.body)).toBe(200);
    const coverKey = cover.body.data.fileKey;
    const draft = await t.call(who.withKey, 'POST', '/api/v1/knowledge', article({ title: '饮食草稿' }));
    const pub = await t.call(
      who.withKey,
      'POST',
      '/api/v1/knowledge',
      article({ title: '术后饮食指导', coverKey, status: 'published' }),
    );
    expect(pub.body.data.publishTime).toBe(t.ctx.clock().toISOString());
    const open = await callAs(t, '', 'GET', `/api/ignore/knowledges?studyId=${studyId}&keyword=饮食`);
    expect(open.status).toBe(200);
    expect(open.body.data.total).toBe(1);
    expect(open.body.data.list[0]).toMatchObject({
      title: '术后饮食指导',
      coverUrl: `/api/ignore/content/image/${coverKey}`,
    });
    expect(open.body.data.list[0].content).toBeUndefined();
    expect((await callAs(t, '', 'GET', `/api/ignore/knowledge/${pub.body.data.id}`)).body.data.content).toContain(
      '下床',
    );
    expect((await callAs(t, '', 'GET', `/api/ignore/knowledge/${draft.body.data.id}`)).status).toBe(404);
    const image = await t.app.inject({ method: 'GET', url: `/api/ignore/content/image/${coverKey}` });
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    // Staff list: drafts included, filtered by status, paged (platform §9).
    const staff = await t.call(who.withoutKey, 'GET', `/api/v1/knowledges?studyId=${studyId}&status=draft&pageSize=1`);
    expect(staff.body.data.total).toBe(2);
    expect(staff.body.data.list).toHaveLength(1);
    // Back to draft: gone from the public side.
    await t.call(
      who.withKey,
      'PUT',
      `/api/v1/knowledge/${pub.body.data.id}`,
      article({ title: '术后饮食指导', status: 'draft' }),
    );
    expect((await callAs(t, '', 'GET', `/api/ignore/knowledges?studyId=${studyId}`)).body.data.total).toBe(0);
  });

  it('KNOW-04: platform-wide articles are written by study administrators (study:manage) only and shown to every study', async () => {
    const refused = await t.call(who.withKey, 'POST', '/api/v1/knowledge', article({ platform: true }));
    expect(refused.status).toBe(403);
    const made = await t.call(
      admin,
      'POST',
      '/api/v1/knowledge',
      article({ platform: true, status: 'published', title: '全平台文章' }),
    );
    expect(made.status).toBe(200);
    expect(made.body.data.platform).toBe(true);
    expect(
      (await callAs(t, '', 'GET', '/api/ignore/knowledges')).body.data.list.map((a: { title: string }) => a.title),
    ).toEqual(['全平台文章']);
    expect((await t.call(who.withKey, 'PUT', `/api/v1/knowledge/${made.body.data.id}`, article())).status).toBe(403);
  });

  it('KNOW-04: permission matrix of every knowledge call', async () => {
    const mine = (await t.call(admin, 'POST', '/api/v1/knowledge', article({ title: '矩阵' }))).body.data.id as number;
    const expectations: Array<[string, string, unknown, Record<Caller, number>]> = [
      [
        'GET',
        `/api/v1/knowledges?studyId=${studyId}`,
        undefined,
        { admin: 200, withKey: 200, withoutKey: 200, outsider: 403, anonymous: 401 },
      ],
      [
        'GET',
        `/api/v1/knowledge/${mine}?studyId=${studyId}`,
        undefined,
        { admin: 200, withKey: 200, withoutKey: 200, outsider: 403, anonymous: 401 },
      ],
      [
        'POST',
        '/api/v1/knowledge',
        article(),
        { admin: 200, withKey: 200, withoutKey: 403, outsider: 403, anonymous: 401 },
      ],
      [
        'PUT',
        `/api/v1/knowledge/${mine}`,
        article(),
        { admin: 200, withKey: 200, withoutKey: 403, outsider: 403, anonymous: 401 },
      ],
      [
        'POST',
        '/api/v1/knowledge/types',
        { name: '新分类' },
        { admin: 200, withKey: 403, withoutKey: 403, outsider: 403, anonymous: 401 },
      ],
      [
        'GET',
        '/api/v1/knowledge/types',
        undefined,
        { admin: 200, withKey: 200, withoutKey: 200, outsider: 200, anonymous: 401 },
      ],
      [
        'GET',
        '/api/ignore/knowledges',
        undefined,
        { admin: 200, withKey: 200, withoutKey: 200, outsider: 200, anonymous: 200 },
      ],
    ];
    for (const [method, url, body, expected] of expectations) {
      for (const caller of Object.keys(expected) as Caller[]) {
        // A type name is unique: each caller tries its own.
        const payload = url.endsWith('/types') && body ? { name: `分类${caller}` } : body;
        const res = await callAs(t, who[caller], method, url, payload);
        expect(`${method} ${url} ${caller} ${res.status}`).toBe(`${method} ${url} ${caller} ${expected[caller]}`);
      }
    }
    const uploads = await Promise.all(
      (['withKey', 'withoutKey', 'outsider', 'anonymous'] as Caller[]).map((c) => upload(who[c])),
    );
    expect(uploads.map((u) => u.status)).toEqual([200, 403, 403, 401]);
    for (const caller of ['withoutKey', 'outsider', 'anonymous'] as Caller[]) {
      const res = await callAs(t, who[caller], 'DELETE', `/api/v1/knowledge/${mine}?studyId=${studyId}`);
      expect(res.status).toBe(caller === 'anonymous' ? 401 : 403);
    }
    expect((await callAs(t, who.withKey, 'DELETE', `/api/v1/knowledge/${mine}?studyId=${studyId}`)).status).toBe(200);
  });

  it('KNOW-04: a type name is unique; a type in use is not deleted; only pictures are content images', async () => {
    const again = await t.call(admin, 'POST', '/api/v1/knowledge/types', { name: '疾病知识' });
    expect(again.status).toBe(409);
    expect(again.body.msg).toBe('分类名称已存在');
    expect((await t.call(admin, 'DELETE', `/api/v1/knowledge/types/${typeId}`)).body.msg).toBe(
      '该分类下有文章，不能删除',
    );
    const body = multipart({}, [
      { fileName: 'a.pdf', data: Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n'), type: 'application/pdf' },
    ]);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/content/image?studyId=${studyId}`,
      headers: { ...body.headers, authorization: `Bearer ${who.withKey}` },
      payload: body.payload,
    });
    expect(res.statusCode).toBe(400);
  });
});
