import { execFileSync } from 'node:child_process';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { studies } from '../../db/schema/index.js';
import { seedDemoStudy } from '../../db/demo-study.js';
import { multipart } from '../../test/multipart.js';
import { wordTemplate } from '../../test/word-template.js';
import { createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../test/test-app.js';

let t: TestApp;
let admin: string;
let studyId: number;
const crfIds: Record<string, number> = {};

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir: `/tmp/edc-print-test-${process.pid}` } });
  await seedDemoStudy(t.db);
  admin = (await t.login()).token;
  const studies = (await t.call(admin, 'GET', '/api/business/study/list')).body.data.list;
  studyId = studies[0].id;
  for (const crf of (await t.call(admin, 'GET', `/api/system/crf/list?studyId=${studyId}`)).body.data) {
    crfIds[crf.title] = crf.id;
  }
});
afterAll(() => t.close());

async function enrol(extra: object = {}) {
  const res = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: '王五',
    gender: 1,
    birth: '1958-03-02',
    diseaseCode: 'LSS',
    mobile: '13912345678',
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { id: number; subjectRecordId: number; identificationCode: string };
}

const save = (body: object, token = admin) => t.call(token, 'PUT', '/api/v3/business/crf', body);

describe('print', () => {
  it('PRINT-15: GET, POST, PUT and DELETE /api/v1/business/crf/print/temp with crfId; printing fills the Word template with a record’s values', async () => {
    const docx = await wordTemplate('患者：{subjectName} 编号：{identificationCode} 性别：{sex} 体重：{weight}');
    const demographics = crfIds['人口学资料']!;
    const form = multipart({}, [{ fileName: '人口学资料.docx', data: docx }]);
    const up = await t.app.inject({
      method: 'POST',
      url: `/api/v1/business/crf/print/temp?crfId=${demographics}`,
      headers: { ...form.headers, authorization: `Bearer ${admin}` },
      payload: form.payload,
    });
    expect(up.statusCode, up.body).toBe(200);
    expect((await t.call(admin, 'GET', `/api/v1/business/crf/print/is_temp?crfId=${demographics}`)).body.data).toBe(
      true,
    );
    expect(
      (await t.call(admin, 'GET', `/api/v1/business/crf/print/temp?crfId=${demographics}`)).body.data,
    ).toMatchObject({ crfId: demographics, fileName: '人口学资料.docx' });
    const subject = await enrol({ subjectName: '陈三' });
    await save({
      subjectRecordId: subject.subjectRecordId,
      crfId: demographics,
      version: 0,
      values: { sex: '2', weight: 55 },
    });
    const printed = await t.app.inject({
      method: 'GET',
      url: `/api/v1/business/crf/print/word?subjectRecordId=${subject.subjectRecordId}&crfId=${demographics}`,
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(printed.statusCode).toBe(200);
    const PizZip = (await import('pizzip')).default;
    const text = new PizZip(printed.rawPayload).file('word/document.xml')!.asText();
    expect(text).toContain('患者：陈三');
    expect(text).toContain('性别：女');
    expect(text).toContain('体重：55');
    const bad = multipart({}, [{ fileName: 'x.docx', data: 'not a docx' }]);
    expect(
      (
        await t.app.inject({
          method: 'PUT',
          url: `/api/v1/business/crf/print/temp?crfId=${demographics}`,
          headers: { ...bad.headers, authorization: `Bearer ${admin}` },
          payload: bad.payload,
        })
      ).statusCode,
    ).toBe(400);
    const replacement = multipart({}, [{ fileName: '人口学资料-v2.docx', data: docx }]);
    const replaced = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/business/crf/print/temp?crfId=${demographics}`,
      headers: { ...replacement.headers, authorization: `Bearer ${admin}` },
      payload: replacement.payload,
    });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(
      (await t.call(admin, 'GET', `/api/v1/business/crf/print/temp?crfId=${demographics}`)).body.data,
    ).toMatchObject({ fileName: '人口学资料-v2.docx' });
    expect((await t.call(admin, 'DELETE', `/api/v1/business/crf/print/temp?crfId=${demographics}`)).status).toBe(200);
    expect((await t.call(admin, 'GET', `/api/v1/business/crf/print/is_temp?crfId=${demographics}`)).body.data).toBe(
      false,
    );
    expect((await t.call(admin, 'GET', `/api/v1/business/crf/print/temp?crfId=${demographics}`)).body.data).toBeNull();
  });
});

async function upload(crfId: number, text: string) {
  const form = multipart({}, [{ fileName: 'template.docx', data: await wordTemplate(text) }]);
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/v1/business/crf/print/temp?crfId=${crfId}`,
    headers: { ...form.headers, authorization: `Bearer ${admin}` },
    payload: form.payload,
  });
  expect(res.statusCode, res.body).toBe(200);
}

async function printed(subjectRecordId: number, crfId: number, format: 'docx' | 'pdf' = 'docx') {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/v1/business/crf/print/word?subjectRecordId=${subjectRecordId}&crfId=${crfId}&format=${format}`,
    headers: { authorization: `Bearer ${admin}` },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.rawPayload;
}

/** The text the Word document shows: its runs joined, paragraphs on their own lines. */
async function wordText(docx: Buffer) {
  const PizZip = (await import('pizzip')).default;
  const xml = new PizZip(docx).file('word/document.xml')!.asText();
  return xml
    .replace(/<\/w:p>/g, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&amp;/g, '&');
}

/** Signs the casebook at the test clock's now (2026-11-22 16:00 in Shanghai), one minute later each time. */
async function sign(subjectRecordId: number) {
  const res = await t.call(admin, 'PUT', '/api/v1/business/subject/sign', {
    subjectRecordId,
    password: TEST_ADMIN_PASSWORD,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { signer: string; meaning: string; signedAt: string };
}

/** Moves the clock on; signs in again, as the token may have expired meanwhile. */
async function later(ms: number) {
  t.clock.advance(ms);
  admin = (await t.login()).token;
}

const hasLibreOffice = (() => {
  try {
    execFileSync('soffice', ['--version'], { stdio: 'ignore', timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
})();

describe('signatures on the printed casebook (Part 11 §11.50)', () => {
  it('the Word document shows each signature: signer, date and time in the study’s zone, meaning; a voided one as 签名已失效', async () => {
    const crfId = crfIds['人口学资料']!;
    await upload(crfId, '患者：{subjectName} 体重：{weight}');
    const subject = await enrol({ subjectName: '签名甲' });
    const first = await save({ subjectRecordId: subject.subjectRecordId, crfId, version: 0, values: { weight: 60 } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);

    // Never signed: the form prints as before.
    expect(await wordText(await printed(subject.subjectRecordId, crfId))).not.toContain('电子签名');

    await later(60_000);
    const signature = await sign(subject.subjectRecordId);
    expect(signature.signedAt).toBe('2026-11-22T08:01:00.000Z');
    const line = `研究者签名：${signature.signer} 2026-11-22 16:01（${signature.meaning}）`;
    const signedText = await wordText(await printed(subject.subjectRecordId, crfId));
    expect(signedText).toContain('患者：签名甲 体重：60');
    expect(signedText).toContain(`电子签名\n${line}\n`);

    // The study's zone, not the server's: the same instant in Berlin is 09:01.
    const [study] = await t.db.select().from(studies).where(eq(studies.studyId, studyId));
    await t.db.update(studies).set({ timeZone: 'Europe/Berlin' }).where(eq(studies.studyId, studyId));
    try {
      expect(await wordText(await printed(subject.subjectRecordId, crfId))).toContain(
        `研究者签名：${signature.signer} 2026-11-22 09:01（${signature.meaning}）`,
      );
    } finally {
      await t.db.update(studies).set({ timeZone: study!.timeZone }).where(eq(studies.studyId, studyId));
    }

    // A change voids it: the line says 签名已失效 with when, and still names who signed, when and why.
    await later(30 * 60_000);
    const { crfDataRecordId, version } = first.body.data;
    const changed = await save({
      subjectRecordId: subject.subjectRecordId,
      crfId,
      crfDataRecordId,
      version,
      values: { weight: 61 },
      reason: '录入错误',
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    await later(60_000);
    const again = await sign(subject.subjectRecordId);
    const voidedText = await wordText(await printed(subject.subjectRecordId, crfId));
    expect(voidedText).toContain(`签名已失效（数据修改于 2026-11-22 16:31）原${line}\n`);
    expect(voidedText).toContain(`研究者签名：${again.signer} 2026-11-22 16:32（${again.meaning}）`);
    // Oldest first: the voided signature, then the one that stands.
    expect(voidedText.indexOf('签名已失效')).toBeLessThan(voidedText.indexOf('16:32'));

    // The overview answers the same signatures and the study's zone for the web to show them.
    const overview = (await t.call(admin, 'GET', `/api/v3/business/overview/${subject.subjectRecordId}`)).body.data;
    expect(overview.timeZone).toBe(study!.timeZone);
    expect(overview.signatures).toMatchObject([
      { valid: true, signedAt: '2026-11-22T08:32:00.000Z' },
      { valid: false, signedAt: '2026-11-22T08:01:00.000Z', invalidatedAt: '2026-11-22T08:31:00.000Z' },
    ]);
  });

  it('a template that places {signatures} gets them there, once, without the added heading', async () => {
    const crfId = crfIds['人口学资料']!;
    await upload(crfId, '患者：{subjectName} 签名：{signatures}');
    const subject = await enrol({ subjectName: '签名乙' });
    await save({ subjectRecordId: subject.subjectRecordId, crfId, version: 0, values: { weight: 70 } });
    const signature = await sign(subject.subjectRecordId);
    const text = await wordText(await printed(subject.subjectRecordId, crfId));
    const line = `研究者签名：${signature.signer}`;
    expect(text).toContain(`签名：${line}`);
    expect(text.split(line)).toHaveLength(2);
    expect(text).not.toContain('电子签名');
  });

  it.skipIf(!hasLibreOffice)(
    'the PDF (the Word document converted by LibreOffice) shows the signature line',
    async () => {
      const crfId = crfIds['人口学资料']!;
      await upload(crfId, '患者：{subjectName}');
      const subject = await enrol({ subjectName: '签名丙' });
      await save({ subjectRecordId: subject.subjectRecordId, crfId, version: 0, values: { weight: 80 } });
      const signature = await sign(subject.subjectRecordId);
      const pdf = await printed(subject.subjectRecordId, crfId, 'pdf');
      const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
      const document = await getDocument({ data: new Uint8Array(pdf) }).promise;
      let text = '';
      for (let n = 1; n <= document.numPages; n += 1) {
        const content = await (await document.getPage(n)).getTextContent();
        text += content.items.map((item) => ('str' in item ? item.str : '')).join('');
      }
      expect(text.replace(/\s+/g, '')).toContain(`研究者签名：${signature.signer}`.replace(/\s+/g, ''));
    },
  );
});
