import { articleSchema, contentImageSchema, knowledgeTypeSchema } from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contractData, pageOf } from '../../test/contract.js';
import { openDemoStudy } from '../../test/demo.js';
import { multipart } from '../../test/multipart.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/** The knowledge base's answers, as the routes give them, against core's contract (content-contract.ts). */

// A 1×1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

let t: TestApp;
let admin: string;
let studyId: number;

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, studyId } = await openDemoStudy(t));
});
afterAll(() => t.close());

async function uploadImage() {
  const body = multipart({}, [{ fileName: 'cover.png', data: PNG, type: 'image/png' }]);
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/v1/content/image?studyId=${studyId}`,
    headers: { ...body.headers, authorization: `Bearer ${admin}` },
    payload: body.payload,
  });
  return { status: res.statusCode, body: res.json() as { data?: unknown } };
}

describe('the knowledge base answers as core describes it', () => {
  it('the types, a picture, writing, reading and removing an article, and the public list', async () => {
    const types = contractData(z.array(knowledgeTypeSchema), await t.call(admin, 'GET', '/api/v1/knowledge/types'));
    const cover = contractData(contentImageSchema, await uploadImage());
    const body = {
      studyId,
      typeId: types[0]!.id,
      title: '术后饮食指导',
      coverKey: cover.fileKey,
      content: '<p>术后第一天即可下床。</p>',
      status: 'draft',
    };
    const created = contractData(articleSchema, await t.call(admin, 'POST', '/api/v1/knowledge', body));
    expect(created.content).toBe('<p>术后第一天即可下床。</p>');
    const url = `/api/v1/knowledge/${created.id}`;
    contractData(articleSchema, await t.call(admin, 'PUT', url, { ...body, status: 'published' }));
    contractData(articleSchema, await t.call(admin, 'GET', `${url}?studyId=${studyId}`));
    const list = contractData(
      pageOf(articleSchema),
      await t.call(admin, 'GET', `/api/v1/knowledges?studyId=${studyId}&pageNum=1&pageSize=10`),
    );
    expect(list.list[0]!.content).toBeUndefined();
    contractData(
      pageOf(articleSchema),
      await t.call(admin, 'GET', `/api/ignore/knowledges?studyId=${studyId}&pageNum=1&pageSize=10`),
    );
    contractData(articleSchema, await t.call(admin, 'GET', `/api/ignore/knowledge/${created.id}`));
    expect(contractData(z.null(), await t.call(admin, 'DELETE', `${url}?studyId=${studyId}`))).toBeNull();
  });
});
