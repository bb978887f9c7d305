import ExcelJS from 'exceljs';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allStudyPermissionKeys, type CrfDefinition } from '@ecrf/core';
import { CRF_IMPORT_LIMITS } from '@ecrf/core/interop';
import { auditEvents, crfs, studyRoles } from '../../db/schema/index.js';
import { multipart } from '../../test/multipart.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { createCrfImportPool } from './crf-import.pool.js';

let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await createTestApp();
  admin = (await t.login()).token;
});
afterAll(() => t.close());

function form(title: string, items = 1): CrfDefinition {
  return {
    title,
    option: {},
    children: Array.from({ length: items }, (_, i) => ({
      name: `q${i}`,
      title: `题目${i}`,
      type: 'input',
      option: {},
      children: [],
    })),
  } as CrfDefinition;
}

let studyCount = 0;
async function newStudy() {
  studyCount += 1;
  const res = await t.call(admin, 'POST', '/api/business/study', {
    studyName: `上传研究${studyCount}`,
    studyCode: `UP${studyCount}`,
    diseases: [{ diseaseName: '腰椎管狭窄', diseaseCode: 'LSS' }],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.id as number;
}

async function upload(
  studyId: number,
  files: Array<{ fileName: string; data: Buffer | string }>,
  fields: Record<string, string> = {},
  url = '/api/system/crf',
) {
  const body = multipart({ studyId: String(studyId), ...fields }, files);
  const res = await t.app.inject({
    method: 'POST',
    url,
    headers: { ...body.headers, authorization: `Bearer ${admin}` },
    payload: body.payload,
  });
  return { status: res.statusCode, body: res.json() };
}

const json = (definitions: CrfDefinition | CrfDefinition[]) => ({
  fileName: 'forms.json',
  data: JSON.stringify(definitions),
});

async function titlesOf(studyId: number) {
  const rows = await t.db
    .select({ title: crfs.title, version: crfs.currentVersion })
    .from(crfs)
    .where(eq(crfs.studyId, studyId));
  return rows.sort((a, b) => a.title.localeCompare(b.title));
}

describe('an upload says what it will create and what it will version, and asks', () => {
  it('a dry run answers the plan and writes nothing', async () => {
    const studyId = await newStudy();
    await upload(studyId, [json(form('基线'))]);
    const plan = await upload(studyId, [json([form('基线', 2), form('随访')])], { dryRun: '1' });
    expect(plan.status).toBe(200);
    expect(plan.body.data.crfs).toEqual([]);
    expect(plan.body.data.plan).toMatchObject([
      { title: '基线', action: 'version', version: 2, existing: { currentVersion: 1, hasData: false } },
      { title: '随访', action: 'create', storedTitle: '随访', version: 1 },
    ]);
    expect(plan.body.data.plan[0].existing.choice).toBeUndefined();
    expect(await titlesOf(studyId)).toEqual([{ title: '基线', version: 1 }]);
  });

  it('a form whose title exists is refused with the plan until the user chooses; nothing is half-written', async () => {
    const studyId = await newStudy();
    await upload(studyId, [json(form('基线'))]);
    const audits = (await t.db.select().from(auditEvents).where(eq(auditEvents.studyId, studyId))).length;
    const refused = await upload(studyId, [json([form('随访'), form('基线', 2)])]);
    expect(refused.status).toBe(409);
    expect(refused.body.msg).toBe('以下CRF已存在，上传将生成新版本，请确认：基线');
    expect(refused.body.data.plan.map((p: { action: string }) => p.action)).toEqual(['create', 'version']);
    // 随访 was new, yet nothing of the upload was stored.
    expect(await titlesOf(studyId)).toEqual([{ title: '基线', version: 1 }]);
    expect((await t.db.select().from(auditEvents).where(eq(auditEvents.studyId, studyId))).length).toBe(audits);
  });

  it('the user may version one form and import another beside its namesake', async () => {
    const studyId = await newStudy();
    await upload(studyId, [json([form('基线'), form('随访')])]);
    const res = await upload(studyId, [json([form('基线', 2), form('随访', 3)])], {
      onExisting: JSON.stringify({ 基线: 'version', 随访: 'new' }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.crfs.map((c: { title: string; version: number }) => [c.title, c.version])).toEqual([
      ['基线', 2],
      ['随访（2）', 1],
    ]);
    expect(await titlesOf(studyId)).toEqual([
      { title: '基线', version: 2 },
      { title: '随访', version: 1 },
      { title: '随访（2）', version: 1 },
    ]);
  });

  it('a JSON definition body takes the same choice; a malformed choice is a clear 400', async () => {
    const studyId = await newStudy();
    await t.call(admin, 'POST', '/api/system/crf', { studyId, definition: form('基线') });
    const bad = await upload(studyId, [json(form('基线'))], { onExisting: '{"基线": "overwrite"}' });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toContain('onExisting');
    const asNew = await t.call(admin, 'POST', '/api/system/crf', {
      studyId,
      definition: form('基线'),
      onExisting: { 基线: 'new' },
    });
    expect(asNew.body.data.crfs[0]).toMatchObject({ title: '基线（2）', version: 1 });
  });

  it('several files: each one needing a choice is reported with its plan, the others are stored', async () => {
    const studyId = await newStudy();
    await upload(studyId, [json(form('基线'))]);
    const res = await upload(
      studyId,
      [
        { fileName: 'a.json', data: JSON.stringify(form('新表')) },
        { fileName: 'b.json', data: JSON.stringify(form('基线', 2)) },
      ],
      {},
      '/api/system/crf/multi',
    );
    expect(res.body.data[0]).toMatchObject({ fileName: 'a.json', ok: true });
    expect(res.body.data[1]).toMatchObject({ fileName: 'b.json', ok: false });
    expect(res.body.data[1].errors[0].message).toContain('基线');
    expect(res.body.data[1].plan[0]).toMatchObject({ title: '基线', action: 'version' });
  });

  it('two forms of one file with the same title are refused', async () => {
    const studyId = await newStudy();
    const res = await upload(studyId, [json([form('基线'), form('基线', 2)])]);
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe('文件中有重名表单：基线，未导入');
  });
});

describe('new CRFs are granted to the full roles in one statement', () => {
  it('项目管理员 gains every CRF of a 50-form upload; a partial role gains none', async () => {
    const studyId = await newStudy();
    const partial = await t.call(admin, 'POST', '/api/system/studyRole', {
      studyId,
      roleName: '录入员',
      permissions: [],
    });
    expect(partial.status, JSON.stringify(partial.body)).toBe(200);
    const forms = Array.from({ length: 50 }, (_, i) => form(`表${i}`));
    const res = await upload(studyId, [json(forms)]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const ids = res.body.data.crfs.map((c: { id: number }) => c.id) as number[];
    const roles = await t.db.select().from(studyRoles).where(eq(studyRoles.studyId, studyId));
    const manager = roles.find((r) => r.roleName === '项目管理员')!;
    expect(new Set(manager.permissions)).toEqual(new Set(allStudyPermissionKeys(ids)));
    expect(manager.permissions.length).toBe(new Set(manager.permissions).size);
    expect(roles.find((r) => r.roleName === '录入员')!.permissions).toEqual([]);
  });
});

describe('uploads have caps, each with its own message, and never block the server', () => {
  it('more forms than the cap', async () => {
    const studyId = await newStudy();
    const forms = Array.from({ length: CRF_IMPORT_LIMITS.forms + 1 }, (_, i) => form(`表${i}`));
    const res = await upload(studyId, [json(forms)]);
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe(`文件包含${CRF_IMPORT_LIMITS.forms + 1}个表单，超过上限200个，未导入，请拆分后上传`);
  });

  it('a form with more items than the cap, and a text longer than the cap', async () => {
    const studyId = await newStudy();
    const big = await upload(studyId, [json(form('大表', CRF_IMPORT_LIMITS.itemsPerForm + 1))]);
    expect(big.status).toBe(400);
    expect(big.body.msg).toBe('表单“大表”包含3001个题目，超过上限3000个，未导入');
    const wordy = form('长文');
    wordy.children[0]!.option.description = '字'.repeat(CRF_IMPORT_LIMITS.textChars + 1);
    const long = await upload(studyId, [json(wordy)]);
    expect(long.status).toBe(400);
    expect(long.body.msg).toBe('表单“长文”的题目 q0 的 option.description超过10000个字符，未导入');
  });

  it('a CSV with more rows than the cap is refused before it is parsed', async () => {
    const studyId = await newStudy();
    const header = '"Variable / Field Name","Form Name","Section Header","Field Type","Field Label"\n';
    const rows = Array.from({ length: CRF_IMPORT_LIMITS.rows + 1 }, (_, i) => `v${i},f,,text,x\n`).join('');
    const res = await upload(studyId, [{ fileName: 'big.csv', data: header + rows }]);
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe('文件超过20000行，未导入，请拆分后上传');
  });

  it('a workbook with more sheets than the cap is refused while streaming it', async () => {
    const studyId = await newStudy();
    const workbook = new ExcelJS.Workbook();
    for (let i = 0; i <= CRF_IMPORT_LIMITS.sheets; i++) workbook.addWorksheet(`S${i}`).addRow(['名称（name）']);
    const data = Buffer.from(await workbook.xlsx.writeBuffer());
    const res = await upload(studyId, [{ fileName: 'many.xlsx', data }]);
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe('工作簿的工作表超过210个，未导入，请拆分后上传');
  });

  it('a file over the size cap', async () => {
    const studyId = await newStudy();
    const res = await upload(studyId, [
      { fileName: 'huge.json', data: Buffer.alloc(CRF_IMPORT_LIMITS.fileBytes + 1, 32) },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe('文件超过20MB，未导入，请拆分后上传');
  });

  it('a file that takes longer than its time is given up, and the reader still works afterwards', async () => {
    const pool = createCrfImportPool({ limits: { ...CRF_IMPORT_LIMITS, parseSeconds: 0.001 } });
    try {
      await expect(pool.read({ fileName: 'a.json', data: Buffer.from(JSON.stringify(form('慢'))) })).rejects.toThrow(
        '文件解析超过0.001秒，未导入，请拆分后上传',
      );
    } finally {
      await pool.close();
    }
    const normal = createCrfImportPool();
    try {
      const read = await normal.read({ fileName: 'a.json', data: Buffer.from(JSON.stringify(form('快'))) });
      expect(read.forms[0]!.title).toBe('快');
    } finally {
      await normal.close();
    }
  });

  it('a file needing more memory than the reader may use ends the reader, not the server', async () => {
    const pool = createCrfImportPool({ heapMb: 24 });
    try {
      const forms = Array.from({ length: 150 }, (_, i) => form(`表${i}`, 400));
      await expect(pool.read({ fileName: 'a.json', data: Buffer.from(JSON.stringify(forms)) })).rejects.toThrow(
        '文件解析所需内存超出上限，未导入，请拆分后上传',
      );
    } finally {
      await pool.close();
    }
  });
});

describe('a worksheet over the row cap', () => {
  it('is refused while its rows are counted, before the workbook is built', async () => {
    const studyId = await newStudy();
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('大表');
    sheet.addRow(['名称（name）', '标题（title）', '类型（type）']);
    for (let i = 0; i < CRF_IMPORT_LIMITS.rows; i++) sheet.addRow([`q${i}`, '题目', 'input']);
    const data = Buffer.from(await workbook.xlsx.writeBuffer());
    const res = await upload(studyId, [{ fileName: 'rows.xlsx', data }]);
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe('一个工作表超过20000行，未导入，请拆分后上传');
  });
});
