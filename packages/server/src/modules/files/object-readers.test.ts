import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  crfDataRecords,
  jobs,
  objectUploads,
  recognitions,
  scheduledRuns,
  storedFiles,
} from '../../db/schema/index.js';
import { startFakeS3, type FakeS3 } from '../../test/fake-s3.js';
import { openDemoStudy } from '../../test/demo.js';
import { multipart } from '../../test/multipart.js';
import { addStudyMember } from '../../test/study-member.js';
import { wordTemplate } from '../../test/word-template.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { createScheduler } from '../jobs/scheduler.js';
import { RECOGNITION_PATH } from '../recognition/recognition.routes.js';
import { fileOfUrl, imageBytes, imageOf } from '../recognition/recognition.service.js';
import { drawReport, reportFontsInstalled } from '../recognition/report-image.js';
import {
  objectFileKey,
  unconfirmedObjectsCleanup,
  UNCONFIRMED_OBJECT_RETENTION_HOURS,
} from './object-upload.service.js';
import { storedFileOf } from './stored-value.js';

/**
 * The server's own readers of stored files in the external network mode (docs/object-storage.md): a value is an
 * object address `/api/v1/fileupload/object/<key>`, its bytes are in the object store (the test's fake S3), and
 * each reader finds the file through the one resolution of stored values (files/stored-value.ts).
 */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');

let s3: FakeS3;
let t: TestApp;
let admin: string;
let studyId: number;
let crfIds: Record<string, number>;
let subject: { subjectRecordId: number; identificationCode: string };

interface TokenAnswer {
  networkMode: string;
  uploadToken: string;
  domain: string;
  key: string;
}

async function issue(token: string, fileName: string, type: number, study = studyId): Promise<TokenAnswer> {
  const res = await t.app.inject({
    method: 'GET',
    url: '/api/v1/qiniu/upload/token',
    query: { studyId: String(study), type: String(type), fileName },
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as TokenAnswer;
}

/** The browser's form post of the token's fields and the file, straight to the store. */
async function post(answer: TokenAnswer, data: Buffer, contentType: string) {
  const { url, fields } = JSON.parse(Buffer.from(answer.uploadToken, 'base64url').toString()) as {
    url: string;
    fields: Record<string, string>;
  };
  const form = new FormData();
  for (const [name, value] of Object.entries({ ...fields, 'Content-Type': contentType })) form.append(name, value);
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

/** An upload as the external mode's page makes it: token, post, confirm. Answers the value the form keeps. */
async function uploadObject(fileName: string, data: Buffer, contentType: string, type = 1, study = studyId) {
  const answer = await issue(admin, fileName, type, study);
  expect(await post(answer, data, contentType)).toBe(204);
  const res = await confirm(admin, answer.key, study);
  expect(res.statusCode, res.body).toBe(200);
  return { key: answer.key, url: res.json().data.url as string, fileKey: objectFileKey(answer.key) };
}

let redcapToken: string | undefined;
/** REDCap's content=file export of the patient's lab report field (the API token made on first use). */
async function exportLabReport() {
  if (!redcapToken) {
    const created = await t.call(admin, 'POST', '/api/system/user/profile/apiToken', { studyId });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    redcapToken = created.body.data.token as string;
  }
  return t.app.inject({
    method: 'POST',
    url: '/api/redcap',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      token: redcapToken,
      content: 'file',
      action: 'export',
      record: subject.identificationCode,
      field: 'lab_report',
      returnFormat: 'json',
    }).toString(),
  });
}

const imageValue = (...urls: string[]) =>
  JSON.stringify(urls.map((url) => ({ uploadTime: '2026-11-22 08:00:00', remarks: '', dialogImgUrl: url })));

async function save(crf: string, values: object) {
  const [existing] = await t.db
    .select({ id: crfDataRecords.id, version: crfDataRecords.version })
    .from(crfDataRecords)
    .where(and(eq(crfDataRecords.subjectRecordId, subject.subjectRecordId), eq(crfDataRecords.crfId, crfIds[crf]!)));
  const res = await t.call(admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId: subject.subjectRecordId,
    crfId: crfIds[crf],
    version: existing?.version ?? 0,
    ...(existing ? { crfDataRecordId: existing.id, reason: '更正' } : {}),
    values,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.crfDataRecordId as number;
}

beforeAll(async () => {
  s3 = await startFakeS3();
  t = await createTestApp({ config: { s3: s3.config } });
  ({ admin, studyId, crfIds } = await openDemoStudy(t));
  const enrolled = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: '钱七',
    gender: 1,
    birth: '1962-04-01',
    diseaseCode: 'LSS',
  });
  expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
  subject = enrolled.body.data;
});
afterAll(async () => {
  await t?.close();
  await s3?.close();
});

describe('one reading of a stored value', () => {
  it('UPL-12: an object address gives the object key as the place of the bytes; a key or the download call’s address gives files/…', () => {
    const key = 'images/1795334400000/胸片_正位.png';
    const object = storedFileOf(`/api/v1/fileupload/object/${key}`);
    expect(object).toEqual({
      fileKey: objectFileKey(key),
      storageKey: key,
      objectKey: key,
      value: `/api/v1/fileupload/object/${key}`,
    });
    // Percent-encoded (as a URL parser or a browser writes it) and on a host: the same object.
    expect(storedFileOf(encodeURI(`https://edc.example.org/api/v1/fileupload/object/${key}`))).toEqual(object);
    const fileKey = 'ab'.repeat(16);
    const internal = { fileKey, storageKey: `files/ab/${fileKey}`, objectKey: null, value: fileKey };
    expect(storedFileOf(fileKey)).toEqual(internal);
    expect(storedFileOf(`/api/v1/fileupload/downfile?fileKey=${fileKey}`)).toEqual(internal);
    for (const other of [
      'https://example.org/a.png',
      '/api/v1/fileupload/object/',
      '/api/v1/fileupload/object/images/../../etc/passwd',
      '/api/v1/fileupload/object/images/1/%E0%A4%A',
      'not-a-key',
      '',
    ]) {
      expect(storedFileOf(other), other).toBeNull();
    }
  });
});

describe('readers of stored files in the external network mode', () => {
  let xray: Awaited<ReturnType<typeof uploadObject>>;
  let imagingRecordId: number;

  beforeAll(async () => {
    xray = await uploadObject('胸片 正位.png', PNG, 'image/png');
    imagingRecordId = await save('影像学检查', { img_date: '2026-11-20', xray: imageValue(xray.url) });
  });

  it('UPL-12: Word printing names an image item’s object by the name it was uploaded with', async () => {
    const imaging = crfIds['影像学检查']!;
    const form = multipart({}, [{ fileName: '影像.docx', data: await wordTemplate('片子：{xray}') }]);
    const up = await t.app.inject({
      method: 'POST',
      url: `/api/v1/business/crf/print/temp?crfId=${imaging}`,
      headers: { ...form.headers, authorization: `Bearer ${admin}` },
      payload: form.payload,
    });
    expect(up.statusCode, up.body).toBe(200);
    const printed = await t.app.inject({
      url: `/api/v1/business/crf/print/word?subjectRecordId=${subject.subjectRecordId}&crfId=${imaging}`,
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(printed.statusCode, printed.body).toBe(200);
    const PizZip = (await import('pizzip')).default;
    const text = new PizZip(printed.rawPayload).file('word/document.xml')!.asText();
    // The original name (with its space), not the key's last segment (胸片_正位.png).
    expect(text).toContain('片子：胸片 正位.png');
  });

  it('UPL-12: the audit trail names the object by its original name and links to its address', async () => {
    const res = await t.call(admin, 'GET', `/api/business/crf/audit?crfDataRecordId=${imagingRecordId}&itemName=xray`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [row] = res.body.data as Array<{ newText: string; newFiles: unknown[] }>;
    expect(row!.newText).toBe('胸片 正位.png');
    expect(row!.newFiles).toEqual([{ fileKey: xray.fileKey, fileName: '胸片 正位.png', url: xray.url }]);
    // The link opens the object through this server's read path (membership checked there).
    const read = await t.app.inject({ url: encodeURI(xray.url), headers: { authorization: `Bearer ${admin}` } });
    expect(read.statusCode).toBe(302);
  });

  it('UPL-12: a search on an image item’s file name finds the object by its original name', async () => {
    const search = (name: string) =>
      t.call(admin, 'POST', '/api/business/search/v2', {
        studyId,
        conditions: {
          join: 'and',
          groups: [
            {
              conditions: [
                { kind: 'item', crfId: crfIds['影像学检查'], itemName: 'xray', operator: 'contains', values: [name] },
              ],
            },
          ],
        },
        columns: [],
        pageNum: 1,
        pageSize: 100,
      });
    const ids = async (name: string) => {
      const res = await search(name);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return (res.body.data.list as Array<{ subjectRecordId: number }>).map((r) => r.subjectRecordId);
    };
    // The name as uploaded (with its space) is not in the address: only the stored file's row holds it.
    expect(await ids('胸片 正位')).toEqual([subject.subjectRecordId]);
    expect(await ids('不存在的片子')).toEqual([]);
  });

  it('UPL-12: REDCap file export reads a file item’s object from the store, under its original name', async () => {
    const report = await uploadObject('化验单 2026-11.pdf', PDF, 'application/pdf', 3);
    await save('实验室检查', { lab_report: report.url });
    const exported = await exportLabReport();
    expect(exported.statusCode, exported.body).toBe(200);
    expect(exported.rawPayload.equals(PDF)).toBe(true);
    expect(decodeURIComponent(String(exported.headers['content-type']))).toContain('化验单 2026-11.pdf');

    // Bytes gone from the store: no file, not a server error.
    s3.objects.delete(report.key);
    const gone = await exportLabReport();
    expect(gone.statusCode).toBe(404);
  });

  it('UPL-12: image import by URL uses an object address of this platform (not fetched) and keeps it as the value', async () => {
    const scan = await uploadObject('侧位 片.png', PNG, 'image/png');
    const send = (url: string) =>
      t.call(admin, 'POST', '/api/business/import/image_urls', {
        studyId,
        items: [{ identificationCode: subject.identificationCode, crf: crfIds['影像学检查'], item: 'xray', url }],
      });
    // As a browser or a script writes it: percent-encoded.
    const res = await send(encodeURI(scan.url));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data[0].fileKey).toBe(scan.fileKey);
    const [record] = await t.db.select().from(crfDataRecords).where(eq(crfDataRecords.id, imagingRecordId));
    const entries = JSON.parse(String(record!.values.xray)) as Array<{ dialogImgUrl: string }>;
    expect(entries.map((e) => e.dialogImgUrl)).toEqual([xray.url, scan.url]);

    // An address no confirm recorded in this study is refused, with nothing fetched.
    const never = await send('/api/v1/fileupload/object/images/1/never.png');
    expect(never.status).toBe(400);
    expect(never.body.data.errors[0].message).toBe('文件不存在或不属于本项目');
  });
});

describe('a file of another study', () => {
  it('UPL-12: an object address of another study’s file, put in a record here, is neither read nor named by the readers', async () => {
    const created = await t.call(admin, 'POST', '/api/business/study', {
      studyName: '另一个项目',
      studyCode: 'OTHER9',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const otherStudy = created.body.data.id as number;
    const foreign = await uploadObject('外院 化验单.pdf', PDF, 'application/pdf', 3, otherStudy);
    const foreignImage = await uploadObject('外院 影像.png', PNG, 'image/png', 1, otherStudy);
    const recordId = await save('实验室检查', { lab_report: foreign.url });

    // REDCap: the field holds no file of this study.
    const exported = await exportLabReport();
    expect(exported.statusCode).toBe(400);
    expect(exported.json().error).toContain('没有文件');

    // The audit trail shows the address's last part, never the other study's name for it.
    const trail = await t.call(admin, 'GET', `/api/business/crf/audit?crfDataRecordId=${recordId}&itemName=lab_report`);
    expect(trail.status).toBe(200);
    expect(trail.body.data[0].newText).toBe(foreign.key.split('/').pop());
    expect(JSON.stringify(trail.body.data)).not.toContain('外院 化验单.pdf');

    // Image import: not a file of this study.
    const imported = await t.call(admin, 'POST', '/api/business/import/image_urls', {
      studyId,
      items: [
        {
          identificationCode: subject.identificationCode,
          crf: crfIds['影像学检查'],
          item: 'xray',
          url: foreignImage.url,
        },
      ],
    });
    expect(imported.status).toBe(400);
    expect(imported.body.data.errors[0].message).toBe('文件不存在或不属于本项目');
  });
});

describe('recognition of an image in the object store', () => {
  it('UPL-12: the public call’s url may be the object address: the tempId’s file is found, and the job reads the object', async () => {
    const image = await uploadObject('blank.png', PNG, 'image/png');
    const temp = await t.call(admin, 'POST', `/api/v1/imgrec/temp?studyId=${studyId}`, { fileKey: image.fileKey });
    expect(temp.status, JSON.stringify(temp.body)).toBe(200);
    const other = await uploadObject('other.png', PNG, 'image/png');
    const call = (url: string) =>
      t.app.inject({
        method: 'POST',
        url: RECOGNITION_PATH,
        payload: { url, type: 2, index: 0, tempId: temp.body.data.tempId },
      });
    // Another object's address is refused, without spending the tempId.
    expect((await call(other.url)).statusCode).toBe(403);

    expect(fileOfUrl(image.url)).toMatchObject({ fileKey: image.fileKey, storageKey: image.key });
    const res = await call(encodeURI(image.url));
    // A 1×1 picture holds no text (识别失败): the call was taken, not refused.
    expect(res.statusCode, res.body).not.toBe(403);
    const [row] = await t.db.select().from(recognitions).where(eq(recognitions.fileKey, image.fileKey));
    expect(row).toMatchObject({ objectKey: image.key, state: 'failed' });
    // The job's record holds ids only: not the object key (whose last part is a file name).
    const [job] = await t.db.select().from(jobs).where(eq(jobs.jobId, row!.jobId!));
    expect(JSON.stringify(job!.payload)).not.toContain(image.key);
    // What the job reads is the object's bytes.
    expect((await imageBytes(t.ctx, imageOf(row!))).equals(PNG)).toBe(true);
    // An object key that is not the row's file's is never read for it: the key's own place is.
    expect(imageOf({ ...row!, objectKey: other.key }).storageKey).toBe(
      `files/${row!.fileKey.slice(0, 2)}/${row!.fileKey}`,
    );
  }, 180_000);

  it.skipIf(!reportFontsInstalled())(
    'UPL-12: a lab report uploaded to the bucket is recognised from its object address',
    async () => {
      const report = await uploadObject(
        '血常规.png',
        drawReport([{ name: '血红蛋白', code: 'HGB', value: '98', unit: 'g/L', range: '130-175', flag: '↓' }]),
        'image/png',
      );
      const temp = await t.call(admin, 'POST', `/api/v1/imgrec/temp?studyId=${studyId}`, {
        fileKey: report.fileKey,
        crfId: crfIds['实验室检查'],
        subjectRecordId: subject.subjectRecordId,
      });
      expect(temp.status, JSON.stringify(temp.body)).toBe(200);
      const res = await t.app.inject({
        method: 'POST',
        url: RECOGNITION_PATH,
        payload: { url: report.url, type: 2, index: 0, tempId: temp.body.data.tempId },
      });
      expect(res.statusCode, res.body).toBe(200);
      const items = res.json().data.items as Array<{ projectCode: string; result: string }>;
      expect(items.map((i) => [i.projectCode, i.result])).toEqual([['HGB', '98']]);
      // The source image (SDV) is listed with its object address, which viewers of the form open.
      const sources = await t.call(
        admin,
        'GET',
        `/api/v1/imgrec/sources?studyId=${studyId}&subjectRecordId=${subject.subjectRecordId}`,
      );
      expect(sources.body.data).toEqual([
        expect.objectContaining({ fileKey: report.fileKey, fileName: '血常规.png', url: report.url }),
      ]);
      const read = await t.app.inject({ url: encodeURI(report.url), headers: { authorization: `Bearer ${admin}` } });
      expect(read.statusCode).toBe(302);
    },
    180_000,
  );
});

describe('uploads never confirmed', () => {
  it('UPL-11, UPL-12: a token’s key is recorded until its confirm; a day later what was posted and never confirmed is removed from the store by the hourly task', async () => {
    const nurse = await addStudyMember(t, admin, studyId, '13300000301', { permissions: [] });
    const confirmed = await issue(nurse, 'kept.png', 1);
    expect(await post(confirmed, PNG, 'image/png')).toBe(204);
    const abandoned = await issue(nurse, 'abandoned.png', 1);
    expect(await post(abandoned, PNG, 'image/png')).toBe(204);
    const unused = await issue(nurse, 'unused.png', 1);
    const keysLeft = async () =>
      (await t.db.select({ key: objectUploads.objectKey }).from(objectUploads)).map((r) => r.key).sort();
    expect(await keysLeft()).toEqual(expect.arrayContaining([confirmed.key, abandoned.key, unused.key]));
    expect((await confirm(nurse, confirmed.key)).statusCode).toBe(200);
    expect(await keysLeft()).not.toContain(confirmed.key);

    const scheduler = createScheduler({ db: t.db, clock: t.clock, log: () => undefined }, [
      unconfirmedObjectsCleanup(t.ctx),
    ]);
    // Not yet a day old: nothing is removed.
    t.clock.advance((UNCONFIRMED_OBJECT_RETENTION_HOURS - 1) * 3_600_000);
    expect(await scheduler.tick()).toEqual({ 'cleanup.unconfirmed-objects': 'ran' });
    expect(s3.objects.has(abandoned.key)).toBe(true);

    t.clock.advance(2 * 3_600_000);
    // A token given just now stays, whatever the clock of the others.
    const fresh = await issue((await t.login()).token, 'fresh.png', 1);
    expect(await post(fresh, PNG, 'image/png')).toBe(204);
    expect(await scheduler.tick()).toEqual({ 'cleanup.unconfirmed-objects': 'ran' });
    expect(s3.objects.has(abandoned.key)).toBe(false);
    expect(s3.objects.has(confirmed.key)).toBe(true);
    expect(s3.objects.has(fresh.key)).toBe(true);
    expect(await keysLeft()).toEqual([fresh.key]);
    // The scheduler's record of the run says what it did, in counts.
    const runs = await t.db.select().from(scheduledRuns).where(eq(scheduledRuns.task, 'cleanup.unconfirmed-objects'));
    expect(runs.map((r) => r.outcome)).toContain(
      '1 unconfirmed uploads removed from the object store, 2 upload keys given up',
    );
    // The confirmed upload is still read through this server.
    const admin2 = (await t.login()).token;
    const read = await t.app.inject({
      url: encodeURI(`/api/v1/fileupload/object/${confirmed.key}`),
      headers: { authorization: `Bearer ${admin2}` },
    });
    expect(read.statusCode).toBe(302);
  });
});

describe('an object address on a server without an object store', () => {
  let internal: TestApp | undefined;
  afterAll(async () => {
    await internal?.close();
  });

  it('UPL-12: a reader answers that the file is not here (S3_* removed since the upload), never a server error', async () => {
    internal = await createTestApp({ config: { s3: undefined } });
    const demo = await openDemoStudy(internal);
    const enrolled = await internal.call(demo.admin, 'POST', '/api/business/subject', {
      studyId: demo.studyId,
      subjectName: '孙八',
      gender: 1,
      birth: '1965-02-01',
      diseaseCode: 'LSS',
    });
    expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
    const key = 'files/1795334400000/化验单.pdf';
    // The row the confirm wrote while the store was configured.
    await internal.db.insert(storedFiles).values({
      fileKey: objectFileKey(key),
      studyId: demo.studyId,
      fileName: '化验单 原件.pdf',
      contentType: 'application/pdf',
      size: PDF.length,
      sha256: '0'.repeat(64),
      createdBy: null,
      createdAt: new Date(),
    });
    const saved = await internal.call(demo.admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId: enrolled.body.data.subjectRecordId,
      crfId: demo.crfIds['实验室检查'],
      version: 0,
      values: { lab_report: `/api/v1/fileupload/object/${key}` },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const created = await internal.call(demo.admin, 'POST', '/api/system/user/profile/apiToken', {
      studyId: demo.studyId,
    });
    const exported = await internal.app.inject({
      method: 'POST',
      url: '/api/redcap',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        token: created.body.data.token,
        content: 'file',
        action: 'export',
        record: enrolled.body.data.identificationCode,
        field: 'lab_report',
      }).toString(),
    });
    expect(exported.statusCode, exported.body).toBe(404);
    // Its name is still known to the audit trail.
    const trail = await internal.call(
      demo.admin,
      'GET',
      `/api/business/crf/audit?crfDataRecordId=${saved.body.data.crfDataRecordId}&itemName=lab_report`,
    );
    expect(trail.body.data[0].newText).toBe('化验单 原件.pdf');
  });
});
