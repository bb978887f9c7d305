import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { and, eq } from 'drizzle-orm';
import JSZip from 'jszip';
import { allStudyPermissionKeys, buttonKey, CODING_MSG } from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, codingDictionaries } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { multipart } from '../../test/multipart.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/**
 * 医学编码 (issue 37) dictionary uploads: a licensed distribution's zip as downloaded (files found by name in any
 * folder; a missing one named), WHODrug's B3 files loose or zipped, C3 refused by name, two loads at once leaving
 * one active dictionary, and 编码审核 as a key of its own. The zips are built here from the made-up fixtures
 * (test/fixtures/coding, invented content in the licensed formats), so no binary is committed.
 */
const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../test/fixtures/coding');
const folder = (name: string) =>
  Object.fromEntries(
    readdirSync(path.join(FIXTURES, name)).map((f) => [f, readFileSync(path.join(FIXTURES, name, f))]),
  ) as Record<string, Buffer>;

let t: TestApp;
let admin: string;
let studyId: number;

async function zipOf(entries: Record<string, Buffer | string>): Promise<Buffer> {
  const zip = new JSZip();
  for (const [name, data] of Object.entries(entries)) zip.file(name, data);
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}

async function upload(
  files: Array<{ fileName: string; data: Buffer | string }>,
  opts: { kind?: string; version?: string; token?: string } = {},
) {
  const body = multipart(
    {},
    files.map((f) => ({ field: 'files', ...f })),
  );
  const q = new URLSearchParams({
    studyId: String(studyId),
    kind: opts.kind ?? 'meddra',
    version: opts.version ?? '1.0',
    language: 'zh',
  });
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/business/coding/dictionary?${q}`,
    headers: { ...body.headers, authorization: `Bearer ${opts.token ?? admin}` },
    payload: body.payload,
  });
  return { status: res.statusCode, body: res.json() };
}

const activeOf = (kind: string) =>
  t.db
    .select({ id: codingDictionaries.id, version: codingDictionaries.version })
    .from(codingDictionaries)
    .where(
      and(
        eq(codingDictionaries.studyId, studyId),
        eq(codingDictionaries.kind, kind),
        eq(codingDictionaries.active, true),
      ),
    );

const search = async (kind: string, q: string) =>
  (await t.call(admin, 'GET', `/api/business/coding/search?studyId=${studyId}&kind=${kind}&q=${encodeURIComponent(q)}`))
    .body.data as Array<{ code: string; name: string; path: Record<string, unknown> }>;

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, studyId } = await openDemoStudy(t));
});
afterAll(() => t.close());

describe('医学编码 dictionary uploads', () => {
  it('zip: a MedDRA distribution zip is read as uploaded, its MedAscii files found whatever the folder', async () => {
    const meddra = folder('meddra');
    const entries: Record<string, Buffer | string> = {
      'MedDRA_99_0_Chinese/readme.txt': '虚构说明',
      // The consecutive-format folder and a Mac resource fork are never read.
      'MedDRA_99_0_Chinese/SeqAscii/llt.seq': 'not read',
      '__MACOSX/MedDRA_99_0_Chinese/MedAscii/._llt.asc': 'not read',
    };
    for (const [name, data] of Object.entries(meddra)) {
      entries[`MedDRA_99_0_Chinese/MedAscii/${name.toUpperCase()}`] = data;
    }
    const loaded = await upload([{ fileName: 'meddra_99_0_chinese.zip', data: await zipOf(entries) }]);
    expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
    expect(loaded.body.data).toMatchObject({ kind: 'meddra', termCount: 14, active: true });
    expect((await search('meddra', '头疼'))[0]).toMatchObject({ code: '90400001', path: { ptName: '头痛' } });
  });

  it('zip: a missing file is refused with its name, and nothing is loaded', async () => {
    const { ['pt.asc']: _pt, ...rest } = folder('meddra');
    const entries = Object.fromEntries(Object.entries(rest).map(([n, d]) => [`MedAscii/${n}`, d]));
    const refused = await upload([{ fileName: 'meddra.zip', data: await zipOf(entries) }], { version: '1.1' });
    expect(refused.status).toBe(400);
    expect(refused.body.msg).toBe('压缩包中缺少 MedDRA 文件 pt.asc');
    const broken = await upload([{ fileName: 'meddra.zip', data: Buffer.from('PK\u0003\u0004 not a zip') }]);
    expect(broken.status).toBe(400);
    expect(broken.body.msg).toBe(`${CODING_MSG.badZip}：meddra.zip`);
    const doubled = await upload([{ fileName: 'two.zip', data: await zipOf({ 'a/soc.asc': 'x', 'b/soc.asc': 'y' }) }], {
      version: '1.2',
    });
    expect(doubled.status).toBe(400);
    expect(doubled.body.msg).toBe('上传的文件中有多个 soc.asc');
    expect(await activeOf('meddra')).toEqual([{ id: expect.any(Number), version: '1.0' }]);
  });

  it('WHODrug B3: DD.txt, DDA.txt and INA.txt, loose or zipped; each name a match target with its ATC', async () => {
    const b3 = folder('whodrug-b3');
    const loose = await upload(
      Object.entries(b3).map(([fileName, data]) => ({ fileName, data })),
      { kind: 'whodrug', version: 'B3 2026 Mar 1' },
    );
    expect(loose.status, JSON.stringify(loose.body)).toBe(200);
    expect(loose.body.data.termCount).toBe(4);
    expect((await search('whodrug', 'ASPIRIN'))[0]).toMatchObject({
      code: '90000101002',
      name: 'Aspirin',
      path: { drugCode: '90000101002', atcCode: 'N02BA', atcText: '虚构水杨酸类' },
    });
    const zipped = await upload(
      [
        {
          fileName: 'WHODrug_B3.zip',
          data: await zipOf(
            Object.fromEntries(Object.entries(b3).map(([name, data]) => [`WHODrug Global B3/${name}`, data])),
          ),
        },
      ],
      { kind: 'whodrug', version: 'B3 2026 Sep 1' },
    );
    expect(zipped.status, JSON.stringify(zipped.body)).toBe(200);
    expect(await activeOf('whodrug')).toEqual([{ id: zipped.body.data.id, version: 'B3 2026 Sep 1' }]);

    const noIna = await upload(
      [{ fileName: 'b3.zip', data: await zipOf({ 'DD.txt': b3['DD.txt']!, 'DDA.txt': b3['DDA.txt']! }) }],
      { kind: 'whodrug', version: 'x' },
    );
    expect(noIna.body.msg).toBe('压缩包中缺少 WHODrug B3 文件 INA.TXT');
    const c3 = await upload([{ fileName: 'MP.txt', data: 'x' }], { kind: 'whodrug', version: 'C3' });
    expect(c3.status).toBe(400);
    expect(c3.body.msg).toContain('暂不支持 WHODrug C3 格式');
  });

  it('one active dictionary per kind: two loads at once leave exactly one active, each audited', async () => {
    const files = Object.entries(folder('meddra')).map(([fileName, data]) => ({ fileName, data }));
    const [a, b] = await Promise.all([upload(files, { version: '2.0' }), upload(files, { version: '2.1' })]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const active = await activeOf('meddra');
    expect(active).toHaveLength(1);
    expect([a.body.data.id, b.body.data.id]).toContain(active[0]!.id);
    const loads = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.studyId, studyId), eq(auditEvents.action, 'coding.dictionary')));
    expect(loads.map((l) => (l.newValue as { version: string }).version)).toEqual(
      expect.arrayContaining(['2.0', '2.1']),
    );
  });

  it('编码审核 is a key of its own: a coder without it is refused approval (403); reads still need 医学编码', async () => {
    const every = allStudyPermissionKeys([]);
    const coderOnly = await addStudyMember(t, admin, studyId, '13700000031', {
      permissions: every.filter((k) => k !== buttonKey('business.coding.approve')),
    });
    const approve = await t.call(coderOnly, 'POST', '/api/business/coding/approve', { studyId, codedItemIds: [1] });
    expect(approve.status).toBe(403);
    const approverOnly = await addStudyMember(t, admin, studyId, '13700000032', {
      permissions: [buttonKey('business.coding.approve')],
    });
    expect((await t.call(approverOnly, 'GET', `/api/business/coding/items?studyId=${studyId}`)).status).toBe(403);
  });
});
