import crypto from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoStudy } from '../../db/demo-study.js';
import { storedFiles, users } from '../../db/schema/index.js';
import { startFakeS3, type FakeS3 } from '../../test/fake-s3.js';
import { multipart } from '../../test/multipart.js';
import { addStudyMember } from '../../test/study-member.js';
import { ConfigError, loadConfig } from '../../config.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { objectFileKey, objectName } from './object-upload.service.js';

// A whole 1×1 PNG: read from a network stream, the type is known only from complete chunks.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');
// The fixed test clock's instant: keys carry it as their timestamp.
const NOW = Date.parse('2026-11-22T08:00:00Z');

let s3: FakeS3;
let t: TestApp;
let internal: TestApp;
let admin: string;
let studyId: number;

interface TokenAnswer {
  networkMode: string;
  uploadToken: string;
  domain: string;
  key: string;
}

const tokenCall = (app: TestApp, token: string | null, query: Record<string, string | number>) =>
  app.app.inject({
    method: 'GET',
    url: '/api/v1/qiniu/upload/token',
    query: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])),
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });

async function issue(token: string, fileName: string, type = 1, study = studyId): Promise<TokenAnswer> {
  const res = await tokenCall(t, token, { studyId: study, type, fileName });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as TokenAnswer;
}

/** What the browser does with the token: a form post of its fields, the declared type and the file. */
async function post(answer: TokenAnswer, data: Buffer, contentType: string, override: Record<string, string> = {}) {
  const { url, fields } = JSON.parse(Buffer.from(answer.uploadToken, 'base64url').toString()) as {
    url: string;
    fields: Record<string, string>;
  };
  const form = new FormData();
  for (const [name, value] of Object.entries({ ...fields, 'Content-Type': contentType, ...override })) {
    form.append(name, value);
  }
  form.append('file', new Blob([new Uint8Array(data)], { type: contentType }), 'ignored-name');
  return (await fetch(url, { method: 'POST', body: form })).status;
}

const confirm = (token: string, key: string, study = studyId) =>
  t.app.inject({
    method: 'POST',
    url: `/api/v1/qiniu/upload/confirm?studyId=${study}`,
    headers: { authorization: `Bearer ${token}` },
    payload: { key },
  });

async function outsider(userName: string) {
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

beforeAll(async () => {
  s3 = await startFakeS3();
  t = await createTestApp({ config: { s3: s3.config } });
  await seedDemoStudy(t.db);
  admin = (await t.login()).token;
  studyId = (await t.call(admin, 'GET', '/api/business/study/list')).body.data.list[0].id;
});
afterAll(async () => {
  await t?.close();
  await internal?.close();
  await s3?.close();
});

describe('the upload token (external network mode)', () => {
  it('UPL-11: GET /api/v1/qiniu/upload/token?type=1 answers uploadToken and domain; only signed-in members of the study get one', async () => {
    expect((await tokenCall(t, null, { studyId, type: 1, fileName: 'a.png' })).statusCode).toBe(401);
    const stranger = await outsider('13300000201');
    expect((await tokenCall(t, stranger, { studyId, type: 1, fileName: 'a.png' })).statusCode).toBe(403);
    expect((await tokenCall(t, admin, { studyId, type: 9, fileName: 'a.png' })).statusCode).toBe(400);
    expect((await tokenCall(t, admin, { studyId, type: 1 })).statusCode).toBe(400);

    const member = await addStudyMember(t, admin, studyId, '13300000202', { permissions: [] });
    const answer = await issue(member, 'a.png');
    expect(answer.networkMode).toBe('external');
    expect(typeof answer.uploadToken).toBe('string');
    expect(answer.domain).toBe('/api/v1/fileupload/object/');
    // The pages may post to the store and show files from it, and from nowhere else.
    const csp = String(
      (await tokenCall(t, member, { studyId, type: 1, fileName: 'b.png' })).headers['content-security-policy'],
    );
    expect(csp).toMatch(new RegExp(`connect-src [^;]*${s3.url.replace(/[.:/]/g, '\\$&')}`));
    expect(csp).toMatch(new RegExp(`img-src [^;]*${s3.url.replace(/[.:/]/g, '\\$&')}`));
  });

  it('UPL-12: keys are type-plural/timestamp/filename, one per token even for one name in one millisecond', async () => {
    const image = await issue(admin, '血常规 报告(1).jpg', 1);
    expect(image.key).toBe(`images/${NOW}/血常规_报告_1_.jpg`);
    const again = await issue(admin, '血常规 报告(1).jpg', 1);
    expect(again.key).toBe(`images/${NOW + 1}/血常规_报告_1_.jpg`);
    expect((await issue(admin, 'clip.mp4', 2)).key).toBe(`videos/${NOW}/clip.mp4`);
    expect((await issue(admin, 'consent.pdf', 3)).key).toBe(`files/${NOW}/consent.pdf`);
    expect(objectName('../../etc/passwd')).toBe('etc_passwd');
  });

  it('UPL-12: the signed policy bounds the size (video under 500 MB) and the declared type, and names the one key', async () => {
    const policyOf = (answer: TokenAnswer) => {
      const { fields } = JSON.parse(Buffer.from(answer.uploadToken, 'base64url').toString()) as {
        fields: Record<string, string>;
      };
      return JSON.parse(Buffer.from(fields.Policy ?? fields.policy ?? '', 'base64').toString()) as {
        conditions: unknown[];
      };
    };
    const video = await issue(admin, 'gait.mp4', 2);
    expect(policyOf(video).conditions).toEqual(
      expect.arrayContaining([
        ['content-length-range', 1, 500 * 1024 * 1024 - 1],
        ['starts-with', '$Content-Type', 'video/'],
        { key: video.key },
      ]),
    );
    const image = await issue(admin, 'x.png', 1);
    expect(policyOf(image).conditions).toEqual(expect.arrayContaining([['starts-with', '$Content-Type', 'image/']]));
    // forms §5: a video of 500 MB or more is refused before any token is given.
    const big = await tokenCall(t, admin, { studyId, type: 2, fileName: 'big.mp4', size: 500 * 1024 * 1024 });
    expect(big.statusCode).toBe(400);
    expect(big.json().msg).toBe('上传文件大小不能超过500MB!');
  });

  it('UPL-12: the store refuses a post outside the policy: another key, another declared type, an empty file', async () => {
    const answer = await issue(admin, 'x.png');
    expect(await post(answer, PNG, 'image/png', { key: 'images/1/other.png' })).toBe(403);
    expect(await post(answer, PNG, 'text/html')).toBe(403);
    expect(await post(answer, Buffer.alloc(0), 'image/png')).toBe(400);
    expect(s3.objects.has(answer.key)).toBe(false);
    expect(s3.objects.has('images/1/other.png')).toBe(false);
  });
});

describe('confirming an object uploaded straight to the store', () => {
  it('UPL-12: the record keeps the original name, the hash and the study; the URL is domain + key and reads back the bytes', async () => {
    const answer = await issue(admin, '胸片 正位.png');
    expect(await post(answer, PNG, 'image/png')).toBe(204);
    const res = await confirm(admin, answer.key);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data.url).toBe(`/api/v1/fileupload/object/${answer.key}`);
    expect(data.filePath).toBe(data.url);
    expect(data.fileName).toBe('胸片 正位.png');
    expect(data.sha256).toBe(crypto.createHash('sha256').update(PNG).digest('hex'));
    const [row] = await t.db
      .select()
      .from(storedFiles)
      .where(eq(storedFiles.fileKey, objectFileKey(answer.key)));
    expect(row).toMatchObject({
      studyId,
      fileName: '胸片 正位.png',
      contentType: 'image/png',
      size: PNG.length,
      sha256: data.sha256,
    });

    // Read through this server (membership checked), which sends the browser to a short-lived store address.
    const read = await t.app.inject({ url: encodeURI(data.url), headers: { authorization: `Bearer ${admin}` } });
    expect(read.statusCode, read.body).toBe(302);
    expect(read.headers['cache-control']).toBe('no-store');
    const served = await fetch(String(read.headers.location));
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('content-disposition')).toBe(
      `inline; filename*=UTF-8''${encodeURIComponent('胸片 正位.png')}`,
    );
    expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);

    // Confirmed once only.
    expect((await confirm(admin, answer.key)).statusCode).toBe(404);
  });

  it('UPL-12: only the user the token was given to confirms it, in its study; a non-member reads nothing', async () => {
    const answer = await issue(admin, 'scan.png');
    expect(await post(answer, PNG, 'image/png')).toBe(204);
    const member = await addStudyMember(t, admin, studyId, '13300000203', { permissions: [] });
    expect((await confirm(member, answer.key)).statusCode).toBe(404);
    expect((await confirm(admin, 'images/1/never-issued.png')).statusCode).toBe(404);
    const ok = await confirm(admin, answer.key);
    expect(ok.statusCode, ok.body).toBe(200);

    const stranger = await outsider('13300000204');
    const url = encodeURI(ok.json().data.url as string);
    expect((await t.app.inject({ url, headers: { authorization: `Bearer ${stranger}` } })).statusCode).toBe(403);
    expect((await t.app.inject({ url })).statusCode).toBe(401);
    // A member whose role grants no form, and who did not upload it, does not read it either.
    expect((await t.app.inject({ url, headers: { authorization: `Bearer ${member}` } })).statusCode).toBe(403);
  });

  it('UPL-12: the bytes decide the type: a PDF declared as an image is refused and removed from the store', async () => {
    const answer = await issue(admin, 'fake.png');
    expect(await post(answer, PDF, 'image/png')).toBe(204);
    const res = await confirm(admin, answer.key);
    expect(res.statusCode).toBe(400);
    expect(res.json().msg).toBe('不支持的文件类型');
    expect(s3.objects.has(answer.key)).toBe(false);
    expect(
      await t.db
        .select()
        .from(storedFiles)
        .where(eq(storedFiles.fileKey, objectFileKey(answer.key))),
    ).toEqual([]);
  });

  it('UPL-12: uploads through this server (internal call) land in the object store when one is configured', async () => {
    const form = multipart({}, [{ fileName: 'inner.png', data: PNG }]);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/common/file/upload?studyId=${studyId}`,
      headers: { ...form.headers, authorization: `Bearer ${admin}` },
      payload: form.payload,
    });
    expect(res.statusCode, res.body).toBe(200);
    const fileKey = res.json().data.fileKey as string;
    expect(s3.objects.get(`files/${fileKey.slice(0, 2)}/${fileKey}`)?.body.equals(PNG)).toBe(true);
    const down = await t.app.inject({
      url: `/api/v1/fileupload/downfile?fileKey=${fileKey}`,
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(down.statusCode).toBe(200);
    expect(down.rawPayload.equals(PNG)).toBe(true);
  });
});

describe('video thumbnails (external network mode)', () => {
  // An ISO base media header with the mp42 brand (video/mp4 by its bytes), and a JPEG's first bytes.
  const MP4 = Buffer.concat([Buffer.from('0000001866747970', 'hex'), Buffer.from('mp42'), Buffer.alloc(256)]);
  const JPEG = Buffer.concat([Buffer.from('ffd8ffe000104a46494600010100000100010000', 'hex'), Buffer.alloc(128)]);

  it('UPL-17: the first frame goes beside the video as <video key>_thumbnail.jpg and is read under the video’s rule', async () => {
    const nurse = await addStudyMember(t, admin, studyId, '13300000271', { permissions: [] });
    const other = await addStudyMember(t, admin, studyId, '13300000272', { permissions: [] });
    const video = await issue(nurse, '步态.mp4', 2);
    expect(await post(video, MP4, 'video/mp4')).toBe(204);
    expect((await confirm(nurse, video.key)).statusCode).toBe(200);

    // Nobody else adds a picture in front of this video.
    const refused = await tokenCall(t, other, { studyId, type: 1, fileName: 'x.jpg', thumbnailOf: video.key });
    expect(refused.statusCode).toBe(404);
    const res = await tokenCall(t, nurse, {
      studyId,
      type: 1,
      fileName: '步态.mp4_thumbnail.jpg',
      thumbnailOf: video.key,
    });
    expect(res.statusCode, res.body).toBe(200);
    const thumb = res.json().data as TokenAnswer;
    expect(thumb.key).toBe(`${video.key}_thumbnail.jpg`);
    expect(await post(thumb, JPEG, 'image/jpeg')).toBe(204);
    const confirmed = await confirm(nurse, thumb.key);
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.json().data.url).toBe(`/api/v1/fileupload/object/${video.key}_thumbnail.jpg`);
    // Once per video.
    expect(
      (await tokenCall(t, nurse, { studyId, type: 1, fileName: 'again.jpg', thumbnailOf: video.key })).statusCode,
    ).toBe(409);

    const read = (token: string, key: string) =>
      t.app.inject({
        url: encodeURI(`/api/v1/fileupload/object/${key}`),
        headers: { authorization: `Bearer ${token}` },
      });
    for (const [token, status] of [
      [nurse, 302],
      [admin, 302],
      [other, 403],
    ] as const) {
      expect((await read(token, video.key)).statusCode).toBe(status);
      expect((await read(token, thumb.key)).statusCode).toBe(status);
    }
    const served = await fetch(String((await read(nurse, thumb.key)).headers.location));
    expect(served.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await served.arrayBuffer()).equals(JPEG)).toBe(true);
  });
});

describe('without an object store', () => {
  it('S3 settings are taken together or not at all; none configured is the internal mode', () => {
    expect(loadConfig({}).s3).toBeUndefined();
    expect(() => loadConfig({ S3_BUCKET: 'edc' })).toThrow(ConfigError);
    expect(() => loadConfig({ S3_ENDPOINT: 'http://minio:9000' })).toThrow(ConfigError);
    const env = {
      S3_ENDPOINT: 'http://minio:9000',
      S3_BUCKET: 'edc',
      S3_ACCESS_KEY_ID: 'a',
      S3_SECRET_ACCESS_KEY: 's',
    };
    expect(loadConfig(env).s3).toEqual({
      endpoint: 'http://minio:9000',
      bucket: 'edc',
      accessKeyId: 'a',
      secretAccessKey: 's',
      region: 'us-east-1',
    });
  });

  it('the token call answers the internal network mode, and the browser uploads to this server', async () => {
    internal = await createTestApp({ config: { s3: undefined } });
    await seedDemoStudy(internal.db);
    const token = (await internal.login()).token;
    const study = (await internal.call(token, 'GET', '/api/business/study/list')).body.data.list[0].id as number;
    const res = await tokenCall(internal, token, { studyId: study, type: 1, fileName: 'a.png' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ networkMode: 'internal' });
  });
});
