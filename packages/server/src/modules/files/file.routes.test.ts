import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoStudy } from '../../db/demo-study.js';
import { storedFiles, users } from '../../db/schema/index.js';
import { multipart } from '../../test/multipart.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { servingHeaders } from './file.service.js';

const PNG = Buffer.concat([
  Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex'),
  Buffer.alloc(64),
]);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');

let t: TestApp;
let admin: string;
let studyId: number;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'edc-files-test-'));
const filesDir = path.join(dataDir, 'files');

/** Every file under the upload directory, finished or partial. */
function storedOnDisk(): string[] {
  if (!fs.existsSync(filesDir)) return [];
  return fs
    .readdirSync(filesDir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name);
}

async function userOutsideEveryStudy(userName: string) {
  const role = await t.call(admin, 'POST', '/api/system/role', {
    roleName: `外部${userName}`,
    roleKey: `outside${userName}`,
    menuIds: [],
  });
  const user = await t.call(admin, 'POST', '/api/system/user', {
    userName,
    password: 'Passw0rd',
    name: '外部人员',
    deptId: 1,
    roleIds: [role.body.data.roleId],
  });
  await t.db.update(users).set({ setPasswordMust: false }).where(eq(users.userId, user.body.data.userId));
  return (await t.login(userName, 'Passw0rd')).token;
}

const upload = (
  token: string,
  study: number | string | null,
  file: { fileName: string; data: Buffer | string },
  fields: Record<string, string> = {},
) => {
  const form = multipart(fields, [file]);
  const url = study === null ? '/api/common/file/upload' : `/api/common/file/upload?studyId=${study}`;
  return t.app.inject({
    method: 'POST',
    url,
    headers: { ...form.headers, authorization: `Bearer ${token}` },
    payload: form.payload,
  });
};

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir } });
  await seedDemoStudy(t.db);
  admin = (await t.login()).token;
  studyId = (await t.call(admin, 'GET', '/api/business/study/list')).body.data.list[0].id;
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('uploads check study membership before the body is read', () => {
  it('a non-member is refused with 403 and not one byte reaches the disk; neither does an upload naming no study', async () => {
    const outsider = await userOutsideEveryStudy('13300000101');
    const big = Buffer.concat([PNG, Buffer.alloc(2 * 1024 * 1024)]);
    // The upload directory is a plain file for now: any attempt to write (even one later
    // deleted) fails loudly instead of passing unseen.
    fs.writeFileSync(filesDir, 'not a directory');
    const refused = await upload(outsider, studyId, { fileName: 'x.png', data: big });
    expect(refused.statusCode).toBe(403);
    // A study named in the body can't stand in for the address: it would only be known after the file.
    const viaField = await upload(outsider, null, { fileName: 'x.png', data: big }, { studyId: String(studyId) });
    expect(viaField.statusCode).toBe(400);
    expect((await upload(admin, null, { fileName: 'x.png', data: PNG })).statusCode).toBe(400);
    expect(fs.readFileSync(filesDir, 'utf8')).toBe('not a directory');
    expect(await t.db.select().from(storedFiles)).toHaveLength(0);
    fs.rmSync(filesDir);

    const accepted = await upload(admin, studyId, { fileName: 'x.png', data: PNG });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(storedOnDisk()).toEqual([accepted.json().data.fileKey]);
    const [row] = await t.db.select().from(storedFiles).where(eq(storedFiles.fileKey, accepted.json().data.fileKey));
    expect(row!.studyId).toBe(studyId);
  });
});

describe('stored files are served so that none can run as a page of this origin', () => {
  it('an image is shown inline, a PDF is an attachment; both under a sandbox policy with nosniff', async () => {
    const image = (await upload(admin, studyId, { fileName: 'xray.png', data: PNG })).json().data;
    const pdf = await upload(admin, studyId, { fileName: '知情同意书.pdf', data: PDF });
    expect(pdf.statusCode, pdf.body).toBe(200);
    expect(pdf.json().data.contentType).toBe('application/pdf');

    const get = (fileKey: string) =>
      t.app.inject({
        url: `/api/v1/fileupload/downfile?fileKey=${fileKey}`,
        headers: { authorization: `Bearer ${admin}` },
      });
    const shown = await get(image.fileKey);
    expect(shown.headers['content-disposition']).toBe("inline; filename*=UTF-8''xray.png");
    const downloaded = await get(pdf.json().data.fileKey);
    expect(downloaded.statusCode).toBe(200);
    expect(downloaded.headers['content-type']).toBe('application/pdf');
    expect(downloaded.headers['content-disposition']).toBe(
      `attachment; filename*=UTF-8''${encodeURIComponent('知情同意书.pdf')}`,
    );
    for (const res of [shown, downloaded]) {
      expect(res.headers['content-security-policy']).toMatch(/(^|; )sandbox($|;)/);
      expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it.each([
    ['image/svg+xml', 'drawing.svg'],
    ['text/html', 'page.html'],
    ['application/xhtml+xml', 'page.xhtml'],
    ['text/xml', 'data.xml'],
    ['application/pdf', 'report.pdf'],
    ['text/plain; charset=utf-8', 'notes.txt'],
    ['application/zip', 'images.zip'],
    ['application/octet-stream', 'unknown.bin'],
  ])('%s (anything that is not a picture or video) is an attachment under sandbox', (contentType, fileName) => {
    const headers = servingHeaders(contentType, fileName);
    expect(headers['content-disposition']).toMatch(/^attachment;/);
    expect(headers['content-security-policy']).toMatch(/sandbox/);
  });

  it.each([['image/jpeg'], ['image/png'], ['image/webp'], ['video/mp4'], ['video/webm']])(
    '%s is shown inline, still sandboxed',
    (contentType) => {
      const headers = servingHeaders(contentType, 'x');
      expect(headers['content-disposition']).toMatch(/^inline;/);
      expect(headers['content-security-policy']).toMatch(/sandbox/);
    },
  );
});
