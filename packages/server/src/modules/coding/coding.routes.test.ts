import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { and, eq, sql } from 'drizzle-orm';
import { allStudyPermissionKeys, buttonKey, CODING_MSG } from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../db/client.js';
import { auditEvents, codedItems, codingDictionaries, codingTerms, studies } from '../../db/schema/index.js';
import { multipart } from '../../test/multipart.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { openTwoSiteStudy, type TwoSiteStudy } from '../../test/two-sites.js';

/**
 * 医学编码 (issue 37) through the HTTP API on the made-up dictionary (test/fixtures/coding, invented content in
 * MedDRA's ASCII format): a load activates a dictionary; a save of a coded item auto-codes an exact or synonym
 * match and leaves the rest uncoded; a coder searches, codes and approves, each change audited with old and new
 * codes; site scope, the coder key and locks hold; an upgrade reports the codes that changed.
 */
const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../test/fixtures/coding');
const meddraFiles = () =>
  Object.fromEntries(
    readdirSync(path.join(FIXTURES, 'meddra')).map((f) => [f, readFileSync(path.join(FIXTURES, 'meddra', f), 'utf8')]),
  );

let t: TestApp;
let s: TwoSiteStudy;
let historyCrf: number;
let surgeryCrf: number;

const CODER = buttonKey('business.coding');

async function upload(
  token: string,
  files: Record<string, string>,
  opts: { kind?: string; version?: string; language?: string } = {},
) {
  const body = multipart(
    {},
    Object.entries(files).map(([fileName, data]) => ({ field: 'files', fileName, data })),
  );
  const q = new URLSearchParams({
    studyId: String(s.studyId),
    kind: opts.kind ?? 'meddra',
    version: opts.version ?? '1.0',
    language: opts.language ?? 'zh',
  });
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/business/coding/dictionary?${q}`,
    headers: { ...body.headers, authorization: `Bearer ${token}` },
    payload: body.payload,
  });
  return { status: res.statusCode, body: res.json() };
}

/** Saves the patient's 人口学资料 with its 其他病史 (coded) and waits for the subscribers. */
async function saveHistory(
  token: string,
  subjectRecordId: number,
  note: string,
  prior?: { crfDataRecordId: number; version: number },
) {
  const res = await t.call(token, 'PUT', '/api/v3/business/crf', {
    subjectRecordId,
    crfId: historyCrf,
    crfDataRecordId: prior?.crfDataRecordId,
    version: prior?.version ?? 0,
    values: { history_note: note },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await t.ctx.events.drain();
  return res.body.data as { crfDataRecordId: number; version: number };
}

const list = async (token: string, state?: string) => {
  const res = await t.call(
    token,
    'GET',
    `/api/business/coding/items?studyId=${s.studyId}${state ? `&state=${state}` : ''}&pageSize=50`,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { list: Array<Record<string, any>>; total: number };
};
const codingAudits = () =>
  t.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.studyId, s.studyId), sql`${auditEvents.action} like 'coding.%'`))
    .orderBy(auditEvents.id);

beforeAll(async () => {
  t = await createTestApp();
  s = await openTwoSiteStudy(t);
  historyCrf = s.crfIds['人口学资料']!;
  surgeryCrf = s.crfIds['手术记录']!;
});
afterAll(() => t.close());

describe('医学编码', () => {
  it('dictionary: a MedDRA load reads every level, becomes the active one, and is audited; bad files are refused', async () => {
    const loaded = await upload(s.admin, meddraFiles());
    expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
    expect(loaded.body.msg).toBe(CODING_MSG.loaded);
    expect(loaded.body.data).toMatchObject({ kind: 'meddra', version: '1.0', language: 'zh', active: true });
    const levels = await queryRows<{ level: string; n: number }>(
      t.db,
      sql`select level, count(*)::int as n from coding_terms where dictionary_id = ${loaded.body.data.id} group by level order by level`,
    );
    expect(levels.map((l) => [l.level, Number(l.n)])).toEqual([
      ['hlgt', 2],
      ['hlt', 2],
      ['llt', 6],
      ['pt', 2],
      ['soc', 2],
    ]);
    expect(loaded.body.data.termCount).toBe(14);
    const audits = await codingAudits();
    expect(audits.at(-1)).toMatchObject({ action: 'coding.dictionary', userId: expect.any(Number) });

    const missing = await upload(s.admin, { 'llt.asc': meddraFiles()['llt.asc']! });
    expect(missing.status).toBe(400);
    expect(missing.body.msg).toContain('pt.asc');
    const broken = await upload(s.admin, { ...meddraFiles(), 'pt.asc': 'garbage\n' });
    expect(broken.status).toBe(400);
    const dictionaries = await t.call(s.admin, 'GET', `/api/business/coding/dictionaries?studyId=${s.studyId}`);
    expect(dictionaries.body.data).toHaveLength(1);
  });

  it('dictionary: WHODrug loads from its CSV, drug names with their ATC', async () => {
    const loaded = await upload(
      s.admin,
      { 'whodrug.csv': readFileSync(path.join(FIXTURES, 'whodrug.csv'), 'utf8') },
      {
        kind: 'whodrug',
        version: '2026 Mar 1',
      },
    );
    expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
    expect(loaded.body.data.termCount).toBe(4);
    const hits = await t.call(
      s.admin,
      'GET',
      `/api/business/coding/search?studyId=${s.studyId}&kind=whodrug&q=ASPIRIN`,
    );
    expect(hits.body.data[0]).toMatchObject({ code: '900001', name: 'Aspirin', path: { atcCode: 'N02BA01' } });
  });

  it('settings: coded items must be free-text items of the form; set and audited', async () => {
    const bad = await t.call(s.admin, 'PUT', '/api/business/coding/items', {
      studyId: s.studyId,
      items: [{ crfId: historyCrf, itemName: 'sex', kind: 'meddra' }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toContain(CODING_MSG.itemNotInForm);
    const ok = await t.call(s.admin, 'PUT', '/api/business/coding/items', {
      studyId: s.studyId,
      items: [
        { crfId: historyCrf, itemName: 'history_note', kind: 'meddra' },
        { crfId: surgeryCrf, itemName: 'complication_note', kind: 'meddra' },
      ],
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const [study] = await t.db.select({ c: studies.codedItems }).from(studies).where(eq(studies.studyId, s.studyId));
    expect(study!.c).toHaveLength(2);
    expect((await codingAudits()).at(-1)).toMatchObject({ action: 'coding.items', oldValue: [] });
  });

  it('auto-coding: a synonym matches exactly after folding (auto, LLT→PT→primary SOC); no match stays uncoded; audited', async () => {
    const a = await saveHistory(s.nurseA.token, s.patientA.subjectRecordId, '  ＨＥＡＤＡＣＨＥ ');
    const b = await saveHistory(s.nurseB.token, s.patientB.subjectRecordId, '作呕（旧称）');
    const all = await list(s.admin);
    expect(all.total).toBe(2);
    const rowA = all.list.find((r) => r.crfDataRecordId === a.crfDataRecordId)!;
    expect(rowA).toMatchObject({
      verbatim: 'ＨＥＡＤＡＣＨＥ',
      state: 'auto',
      kind: 'meddra',
      siteName: '甲中心',
      itemName: 'history_note',
      coding: {
        lltCode: '90400002',
        ptCode: '90300001',
        ptName: '头痛',
        socCode: '90000001',
        socName: '虚构神经系统疾病',
      },
    });
    // A non-current LLT is never auto-coded.
    expect(all.list.find((r) => r.crfDataRecordId === b.crfDataRecordId)).toMatchObject({
      state: 'uncoded',
      coding: null,
    });
    const autoAudit = (await codingAudits()).find(
      (r) => r.action === 'coding.code' && r.crfDataRecordId === a.crfDataRecordId,
    );
    expect(autoAudit).toMatchObject({ userName: '系统', oldValue: null, newValue: { state: 'auto' } });

    // An unchanged verbatim keeps its codes; a changed one is reset and re-coded.
    const again = await saveHistory(s.nurseA.token, s.patientA.subjectRecordId, 'ＨＥＡＤＡＣＨＥ', a);
    expect((await list(s.admin, 'auto')).total).toBe(1);
    await saveHistory(s.nurseA.token, s.patientA.subjectRecordId, '头疼', again);
    const recoded = (await list(s.admin)).list.find((r) => r.crfDataRecordId === a.crfDataRecordId)!;
    expect(recoded).toMatchObject({
      verbatim: '头疼',
      state: 'auto',
      coding: { lltCode: '90400001', ptCode: '90300001' },
    });
    const last = (await codingAudits()).filter((r) => r.crfDataRecordId === a.crfDataRecordId).at(-1)!;
    expect(last.oldValue).toMatchObject({ verbatim: 'ＨＥＡＤＡＣＨＥ', coding: { lltCode: '90400002' } });
    expect(last.newValue).toMatchObject({ verbatim: '头疼', coding: { lltCode: '90400001' } });
  });

  it('site scope: a site nurse lists and codes only her site’s items (another site’s is 404)', async () => {
    const mine = await list(s.nurseA.token);
    expect(mine.list.map((r) => r.siteName)).toEqual(['甲中心']);
    const theirs = (await list(s.admin)).list.find((r) => r.siteName === '乙中心')!;
    const refused = await t.call(s.nurseA.token, 'POST', '/api/business/coding/code', {
      studyId: s.studyId,
      codedItemId: theirs.id,
      termCode: '90300002',
    });
    expect(refused.status).toBe(404);
    const approve = await t.call(s.nurseA.token, 'POST', '/api/business/coding/approve', {
      studyId: s.studyId,
      codedItemIds: [theirs.id],
    });
    expect(approve.status).toBe(404);
  });

  it('permission: a member without 医学编码 is refused every coding route (403)', async () => {
    const keys = allStudyPermissionKeys(Object.values(s.crfIds)).filter((k) => k !== CODER);
    const plain = await addStudyMember(t, s.admin, s.studyId, '13700000019', { permissions: keys });
    expect((await t.call(plain, 'GET', `/api/business/coding/items?studyId=${s.studyId}`)).status).toBe(403);
    expect(
      (await t.call(plain, 'GET', `/api/business/coding/search?studyId=${s.studyId}&kind=meddra&q=头`)).status,
    ).toBe(403);
    expect((await upload(plain, meddraFiles())).status).toBe(403);
  });

  it('manual coding: search by name or code, code to an LLT (manual), approve; uncoded cannot be approved; audited', async () => {
    const uncoded = (await list(s.admin, 'uncoded')).list[0]!;
    const notYet = await t.call(s.admin, 'POST', '/api/business/coding/approve', {
      studyId: s.studyId,
      codedItemIds: [uncoded.id],
    });
    expect(notYet.status).toBe(400);
    expect(notYet.body.msg).toBe(CODING_MSG.notCoded);

    const hits = await t.call(
      s.admin,
      'GET',
      `/api/business/coding/search?studyId=${s.studyId}&kind=meddra&q=${encodeURIComponent('作呕')}`,
    );
    expect(hits.body.data[0]).toMatchObject({ code: '90400004', current: false, path: { ptCode: '90300002' } });
    const byCode = await t.call(
      s.admin,
      'GET',
      `/api/business/coding/search?studyId=${s.studyId}&kind=meddra&q=90300002`,
    );
    expect(byCode.body.data.map((h: { code: string }) => h.code)).toEqual(['90300002']);

    const unknown = await t.call(s.admin, 'POST', '/api/business/coding/code', {
      studyId: s.studyId,
      codedItemId: uncoded.id,
      termCode: '12345678',
    });
    expect(unknown.status).toBe(400);
    const coded = await t.call(s.admin, 'POST', '/api/business/coding/code', {
      studyId: s.studyId,
      codedItemId: uncoded.id,
      termCode: '90300002',
    });
    expect(coded.status, JSON.stringify(coded.body)).toBe(200);
    expect(coded.body.data).toMatchObject({ state: 'manual', coding: { lltCode: '90300002', socCode: '90000002' } });
    const [row] = await t.db.select().from(codedItems).where(eq(codedItems.id, uncoded.id));
    expect(row).toMatchObject({ state: 'manual', codedBy: expect.any(Number) });
    const manualAudit = (await codingAudits()).at(-1)!;
    expect(manualAudit).toMatchObject({ action: 'coding.code', oldValue: { state: 'uncoded', coding: null } });
    expect(manualAudit.newValue).toMatchObject({ state: 'manual', coding: { lltCode: '90300002' } });

    // 编码审核: the coder never approves her own manual code; another holder of the key does.
    const ids = (await list(s.admin)).list.map((r) => r.id);
    const own = await t.call(s.admin, 'POST', '/api/business/coding/approve', {
      studyId: s.studyId,
      codedItemIds: ids,
    });
    expect(own.status).toBe(403);
    expect(own.body.msg).toBe(CODING_MSG.ownCode);
    expect((await list(s.admin, 'approved')).total).toBe(0);
    const approved = await t.call(s.monitor.token, 'POST', '/api/business/coding/approve', {
      studyId: s.studyId,
      codedItemIds: ids,
    });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.data).toEqual({ approved: 2 });
    expect((await list(s.admin, 'approved')).total).toBe(2);
    const approvals = (await codingAudits()).filter((r) => r.action === 'coding.approve');
    expect(approvals).toHaveLength(2);
    expect(approvals.find((a) => a.crfDataRecordId === uncoded.crfDataRecordId)!.newValue).toMatchObject({
      state: 'approved',
      codedBy: row!.codedBy,
      approvedBy: s.monitor.userId,
    });
  });

  it('locks: a locked record takes no code or approval (423), and nothing changes', async () => {
    const row = (await list(s.admin)).list[0]!;
    const lock = (locked: boolean) =>
      t.call(s.admin, 'PUT', '/api/business/lock', {
        studyId: s.studyId,
        scope: 'record',
        targetId: row.crfDataRecordId,
        locked,
        reason: '编码核查完毕',
      });
    expect((await lock(true)).status).toBe(200);
    const code = await t.call(s.admin, 'POST', '/api/business/coding/code', {
      studyId: s.studyId,
      codedItemId: row.id,
      termCode: '90300001',
    });
    expect(code.status).toBe(423);
    const approve = await t.call(s.admin, 'POST', '/api/business/coding/approve', {
      studyId: s.studyId,
      codedItemIds: [row.id],
    });
    expect(approve.status).toBe(423);
    const [after] = await t.db.select().from(codedItems).where(eq(codedItems.id, row.id));
    expect(after!.state).toBe('approved');
    expect((await lock(false)).status).toBe(200);
  });

  it('upgrade: a new version (an LLT no longer current, a PT moved to another SOC) reports the codes that changed', async () => {
    const v1 = meddraFiles();
    const v2 = {
      ...v1,
      // 头疼 no longer current; 恶心's primary SOC moves to 90000001.
      // (A function replacement: `$$` in a replacement string would read as one `$`.)
      'llt.asc': v1['llt.asc']!.replace('90400001$头疼$90300001$$$$$$$Y$', () => '90400001$头疼$90300001$$$$$$$N$'),
      'pt.asc': v1['pt.asc']!.replace('90300002$恶心$$90000002$', () => '90300002$恶心$$90000001$'),
      'mdhier.asc': v1['mdhier.asc']!.replace(
        '90300002$90200002$90100002$90000002$恶心$虚构恶心症状$虚构恶心呕吐类$虚构胃肠系统疾病$FkGast$$90000002$Y$',
        () =>
          '90300002$90200002$90100002$90000001$恶心$虚构恶心症状$虚构恶心呕吐类$虚构神经系统疾病$FkNerv$$90000001$Y$',
      ),
    };
    const loaded = await upload(s.admin, v2, { version: '2.0' });
    expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
    const active = await t.db
      .select({ version: codingDictionaries.version })
      .from(codingDictionaries)
      .where(
        and(
          eq(codingDictionaries.studyId, s.studyId),
          eq(codingDictionaries.kind, 'meddra'),
          eq(codingDictionaries.active, true),
        ),
      );
    expect(active).toEqual([{ version: '2.0' }]);
    const impact = await t.call(
      s.admin,
      'GET',
      `/api/business/coding/upgrade-impact?studyId=${s.studyId}&dictionaryId=${loaded.body.data.id}`,
    );
    expect(impact.status, JSON.stringify(impact.body)).toBe(200);
    expect(impact.body.data.map((i: { verbatim: string; reason: string }) => [i.verbatim, i.reason]).sort()).toEqual([
      ['作呕（旧称）', 'soc_changed'],
      ['头疼', 'llt_not_current'],
    ]);
    // The site nurse's report holds her site's items only.
    const scoped = await t.call(
      s.nurseA.token,
      'GET',
      `/api/business/coding/upgrade-impact?studyId=${s.studyId}&dictionaryId=${loaded.body.data.id}`,
    );
    expect(scoped.body.data.map((i: { verbatim: string }) => i.verbatim)).toEqual(['头疼']);
    const terms = await t.db.select().from(codingTerms).where(eq(codingTerms.dictionaryId, loaded.body.data.id));
    expect(terms).toHaveLength(14);
  });
});
