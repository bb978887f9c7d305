import { confirmedUploadSchema, uploadedFileSchema, uploadTokenAnswerSchema } from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractData } from '../../test/contract.js';
import { openDemoStudy } from '../../test/demo.js';
import { startFakeS3, type FakeS3 } from '../../test/fake-s3.js';
import { multipart } from '../../test/multipart.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/** The files' answers, as the routes give them, against core's contract (file-contract.ts). */

// A whole 1×1 PNG: the upload checks what a file is, not what it is called.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

let s3: FakeS3;
let t: TestApp;
let admin: string;
let studyId: number;

beforeAll(async () => {
  s3 = await startFakeS3();
  t = await createTestApp({ config: { s3: s3.config } });
  ({ admin, studyId } = await openDemoStudy(t));
});
afterAll(async () => {
  await t?.close();
  await s3?.close();
});

describe('the files answer as core describes them', () => {
  it('an internal upload, and the external mode’s token and confirm', async () => {
    const form = multipart({}, [{ fileName: '照片.png', data: PNG }]);
    const uploaded = await t.app.inject({
      method: 'POST',
      url: `/api/common/file/upload?studyId=${studyId}`,
      headers: { ...form.headers, authorization: `Bearer ${admin}` },
      payload: form.payload,
    });
    contractData(uploadedFileSchema, { status: uploaded.statusCode, body: uploaded.json() });

    const token = contractData(
      uploadTokenAnswerSchema,
      await t.call(admin, 'GET', `/api/v1/qiniu/upload/token?studyId=${studyId}&type=1&fileName=a.png`),
    );
    if (token.networkMode !== 'external') throw new Error('the fake store answers the external mode');
    const { url, fields } = JSON.parse(Buffer.from(token.uploadToken, 'base64url').toString()) as {
      url: string;
      fields: Record<string, string>;
    };
    const post = new FormData();
    for (const [name, value] of Object.entries({ ...fields, 'Content-Type': 'image/png' })) post.append(name, value);
    post.append('file', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'a.png');
    expect((await fetch(url, { method: 'POST', body: post })).status).toBeLessThan(300);
    contractData(
      confirmedUploadSchema,
      await t.call(admin, 'POST', `/api/v1/qiniu/upload/confirm?studyId=${studyId}`, { key: token.key }),
    );
  });
});
