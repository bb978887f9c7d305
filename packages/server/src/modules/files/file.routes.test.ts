import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoStudy } from '../../db/demo-study.js';
import { storedFiles, users } from '../../db/schema/index.js';
import { multipart } from '../../test/multipart.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../test/test-app.js';
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
const userInStudy = (userName: string, permissions: string[]) =>
  addStudyMember(t, admin, studyId, userName, { permissions });

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

describe('uploads are served to members of their study', () => {
  const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

  it('stores an upload by content type and serves it only to members of its study', async () => {
    const form = multipart({ studyId: String(studyId) }, [
      { fileName: 'xray.png', data: Buffer.concat([PNG, Buffer.alloc(64)]) },
    ]);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/common/file/upload?studyId=${studyId}`,
      headers: { ...form.headers, authorization: `Bearer ${admin}` },
      payload: form.payload,
    });
    expect(res.statusCode, res.body).toBe(200);
    const { fileKey, contentType } = res.json().data;
    expect(contentType).toBe('image/png');
    const down = await t.app.inject({
      method: 'GET',
      url: `/api/v1/fileupload/downfile?fileKey=${fileKey}`,
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(down.statusCode).toBe(200);
    expect(down.headers['content-type']).toBe('image/png');
    // An <img src> carries no header: the HttpOnly cookie set at sign-in works for downloads, and only there.
    const signIn = await t.app.inject({
      method: 'POST',
      url: '/api/ignore/sys/login',
      payload: { username: '13800000000', password: TEST_ADMIN_PASSWORD },
    });
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
    expect(String(signIn.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict/);
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/fileupload/downfile?fileKey=${fileKey}`,
          headers: { cookie },
        })
      ).statusCode,
    ).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/sys/login/getInfo', headers: { cookie } })).statusCode).toBe(
      401,
    );
    const html = multipart({ studyId: String(studyId) }, [
      { fileName: 'photo.png', data: '<html><script>alert(1)</script></html>' },
    ]);
    const refused = await t.app.inject({
      method: 'POST',
      url: `/api/common/file/upload?studyId=${studyId}`,
      headers: { ...html.headers, authorization: `Bearer ${admin}` },
      payload: html.payload,
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().msg).toBe('不支持的文件类型');
    const outsiderStudy = (
      await t.call(admin, 'POST', '/api/business/study', { studyName: '另一个项目', studyCode: 'OTHER1' })
    ).body.data.id;
    const stranger = await userInStudy('13300000002', []);
    void outsiderStudy;
    // A member whose role grants no form reads no file; a user of no study may not either.
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/fileupload/downfile?fileKey=${fileKey}`,
          headers: { authorization: `Bearer ${stranger}` },
        })
      ).statusCode,
    ).toBe(403);
    const nobodyUser = await t.call(admin, 'POST', '/api/system/user', {
      userName: '13300000003',
      password: 'Passw0rd',
      name: '无关',
      deptId: 1,
      roleIds: [1],
    });
    const plain = await t.call(admin, 'POST', '/api/system/role', {
      roleName: '无关角色',
      roleKey: 'nobody',
      menuIds: [],
    });
    await t.call(admin, 'PUT', '/api/system/user', {
      userId: nobodyUser.body.data.userId,
      userName: '13300000003',
      name: '无关',
      deptId: 1,
      roleIds: [plain.body.data.roleId],
    });
    await t.db.update(users).set({ setPasswordMust: false }).where(eq(users.userId, nobodyUser.body.data.userId));
    const nobody = (await t.login('13300000003', 'Passw0rd')).token;
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `/api/v1/fileupload/downfile?fileKey=${fileKey}`,
          headers: { authorization: `Bearer ${nobody}` },
        })
      ).statusCode,
    ).toBe(403);
    const upload = multipart({ studyId: String(studyId) }, [{ fileName: 'x.png', data: PNG }]);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: `/api/common/file/upload?studyId=${studyId}`,
          headers: { ...upload.headers, authorization: `Bearer ${nobody}` },
          payload: upload.payload,
        })
      ).statusCode,
    ).toBe(403);
  });
});
