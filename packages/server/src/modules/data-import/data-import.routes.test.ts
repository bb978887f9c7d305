import crypto from 'node:crypto';
import type dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, asc, count, eq, like } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { crfKey } from '@ecrf/core';
import { auditEvents, crfDataRecords, storedFiles } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { multipart } from '../../test/multipart.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { imageUrlNetwork, isRefusedAddress, pinnedLookup } from './public-address.js';

let t: TestApp;
let admin: string;
let studyId: number;
let crfIds: Record<string, number>;
const codes: string[] = [];
const recordIds: number[] = [];
let imageServer: http.Server;
/** A listed name standing for a public image server (resolved to the test server by servePublicly). */
let imageHost: string;
/** The same server listed by a name real DNS resolves to loopback. */
let loopbackHost: string;
/** What the image server was asked for: `host path`. */
const requested: string[] = [];

// A 1×1 PNG: what the image checks read by its bytes.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

type Cell = string | number | Date | null;
async function workbook(sheets: Record<string, Cell[][]>): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) {
    const ws = wb.addWorksheet(name);
    for (const row of rows) ws.addRow(row);
  }
  return Buffer.from(await wb.xlsx.writeBuffer());
}

async function importFile(
  file: Buffer,
  query: Record<string, string>,
  token = admin,
): Promise<{ status: number; body: any }> {
  const body = multipart({}, [{ fileName: '导入.xlsx', data: file }]);
  const qs = new URLSearchParams({ studyId: String(studyId), submitType: '0', ...query }).toString();
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/business/import/multi_crf_sheet/multi_thread?${qs}`,
    headers: { ...body.headers, authorization: `Bearer ${token}` },
    payload: body.payload,
  });
  return { status: res.statusCode, body: res.json() };
}

async function counts() {
  const [records] = await t.db.select({ n: count() }).from(crfDataRecords).where(eq(crfDataRecords.studyId, studyId));
  const [trail] = await t.db.select({ n: count() }).from(auditEvents).where(eq(auditEvents.studyId, studyId));
  return { records: records!.n, audit: trail!.n };
}

async function valuesOf(subjectRecordId: number, crf: string) {
  return t.db
    .select()
    .from(crfDataRecords)
    .where(and(eq(crfDataRecords.subjectRecordId, subjectRecordId), eq(crfDataRecords.crfId, crfIds[crf]!)));
}

const sha = (data: Buffer) => crypto.createHash('sha256').update(data).digest('hex');

beforeAll(async () => {
  imageServer = http.createServer((req, res) => {
    requested.push(`${req.headers.host} ${req.url}`);
    if (req.url === '/ok.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    if (req.url === '/text.png') return res.writeHead(200, { 'content-type': 'image/png' }).end('not an image at all');
    if (req.url === '/big.png') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(PNG);
      return res.end(Buffer.alloc(21 * 1024 * 1024));
    }
    if (req.url === '/away') return res.writeHead(302, { location: 'http://example.org/x.png' }).end();
    if (req.url === '/loop') return res.writeHead(302, { location: 'http://127.0.0.1/x.png' }).end();
    if (req.url === '/same') return res.writeHead(302, { location: '/ok.png' }).end();
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => imageServer.listen(0, '127.0.0.1', resolve));
  const port = (imageServer.address() as AddressInfo).port;
  imageHost = `images.test:${port}`;
  loopbackHost = `localhost:${port}`;
  t = await createTestApp({
    config: {
      dataDir: `/tmp/edc-import-test-${process.pid}`,
      imageUrlHosts: [imageHost, loopbackHost],
      // A hospital intranet opted in (EDC_IMAGE_URL_PRIVATE_NETWORKS); other private addresses stay refused.
      imageUrlPrivateNetworks: ['10.20.0.0/16', 'fd00:12::/32'],
    },
  });
  ({ admin, studyId, crfIds } = await openDemoStudy(t));
  for (const name of ['导入甲', '导入乙']) {
    const enrolled = await t.call(admin, 'POST', '/api/business/subject', {
      studyId,
      subjectName: name,
      gender: 1,
      birth: '1960-05-01',
      diseaseCode: 'LSS',
    });
    expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
    codes.push(enrolled.body.data.identificationCode);
    recordIds.push(enrolled.body.data.subjectRecordId);
  }
  const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId: recordIds[0],
    crfId: crfIds['人口学资料'],
    version: 0,
    values: { sex: '1', birth: '1960-05-01', weight: '65', height: '170' },
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
});
afterAll(async () => {
  await t.close();
  imageServer.close();
});

describe('template', () => {
  it('SRCH-06: the template has a sheet per editable CRF with names and titles, and a data dictionary', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/business/import/template?studyId=${studyId}`,
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toContain('attachment');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const demo = wb.getWorksheet('人口学资料')!;
    expect(demo.getRow(1).values).toEqual(expect.arrayContaining(['identificationCode', 'sex', 'weight']));
    expect(demo.getRow(1).values).not.toContain('bmi');
    expect(demo.getRow(2).values).toEqual(expect.arrayContaining(['编号', '性别', '体重（kg）']));
    expect(wb.getWorksheet('术后随访')!.getRow(1).values).toContain('instance');
    const dict = wb.getWorksheet('数据字典')!;
    const sexRow = dict.getSheetValues().find((r) => Array.isArray(r) && r[2] === 'sex') as unknown[];
    expect(sexRow[5]).toBe('1=男；2=女');
  });
});

describe('dry run', () => {
  it('SRCH-06: lists creations, changes and every error with sheet, row and column, and writes nothing', async () => {
    const file = await workbook({
      人口学资料: [
        ['编号', '体重', 'height', 'sex', 'birth'],
        [codes[0]!, 70, null, null, null],
        [codes[1]!, 'abc', 300, '9', '05/01/1960'],
        ['NOPE-1', 60, null, null, null],
      ],
      术后随访: [
        ['编号', '序号', 'fu_date', 'odi'],
        [codes[0]!, 1, new Date(Date.UTC(2026, 0, 5)), 30],
        [codes[0]!, 3, '2026-02-01', 20],
      ],
    });
    const before = await counts();
    const res = await importFile(file, { dryRun: 'true' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const preview = res.body.data;
    expect(preview.sha256).toBe(sha(file));
    expect(preview.sheetErrors).toEqual([]);
    const rowOf = (sheet: string, row: number) =>
      preview.rows.find((r: { sheet: string; row: number }) => r.sheet === sheet && r.row === row);
    expect(rowOf('人口学资料', 2)).toMatchObject({
      action: 'update',
      errors: [],
      // The calculated BMI changes with the weight: the preview shows it too.
      changes: expect.arrayContaining([
        expect.objectContaining({ item: 'weight', column: '体重', old: '65 kg', new: '70 kg' }),
        expect.objectContaining({ item: 'bmi', old: '22.5', new: '24.2' }),
      ]),
    });
    const bad = rowOf('人口学资料', 3);
    const columns = bad.errors.map((e: { column: string }) => e.column).sort();
    expect(columns).toEqual(['birth', 'height', 'sex', '体重'].sort());
    expect(bad.errors.find((e: { column: string }) => e.column === 'sex').message).toBe('选项不存在');
    expect(rowOf('人口学资料', 4).errors[0]).toMatchObject({ column: '编号', message: '本项目中没有此患者编号' });
    expect(rowOf('术后随访', 2)).toMatchObject({ action: 'create', errors: [] });
    expect(rowOf('术后随访', 2).changes.map((c: { new: string }) => c.new)).toEqual(['2026-01-05', '30 %']);
    expect(rowOf('术后随访', 3).errors[0].message).toContain('下一条新记录为 2');
    expect(preview.summary).toMatchObject({ creates: 1, updates: 1, validPatients: 0 });
    expect(await counts()).toEqual(before);
  });

  it('SRCH-06: unknown columns and ambiguous sheets are sheet errors; submit checks required items', async () => {
    const file = await workbook({
      生命体征: [
        ['编号', 'hr', '不存在的列'],
        [codes[0]!, 70, 1],
      ],
      人口学资料: [
        ['编号', 'bmi'],
        [codes[0]!, 20],
      ],
      不存在的表单: [['编号'], [codes[0]!]],
    });
    const res = await importFile(file, { dryRun: 'true', submitType: '1' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const messages = res.body.data.sheetErrors.map((e: { column: string | null; message: string }) => [
      e.column,
      e.message,
    ]);
    expect(messages).toEqual(
      expect.arrayContaining([
        ['不存在的列', '表单中没有此变量名或标题'],
        ['bmi', '计算项由系统计算，不能导入'],
        [null, '工作表名称不是本项目的CRF标题'],
      ]),
    );
    const required = await importFile(
      await workbook({
        生命体征: [
          ['编号', 'hr'],
          [codes[0]!, 70],
        ],
      }),
      {
        dryRun: 'true',
        submitType: '1',
      },
    );
    const errors = required.body.data.rows[0].errors.map((e: { column: string }) => e.column);
    expect(errors).toEqual(expect.arrayContaining(['收缩压', '舒张压']));
  });
});

describe('import', () => {
  it('SRCH-06: per patient, one bad row leaves that patient untouched and imports the others, audited with 数据导入 and the file hash', async () => {
    const file = await workbook({
      人口学资料: [
        ['identificationCode', 'weight'],
        ['编号', '体重'],
        [codes[0]!, 72],
        [codes[1]!, 'abc'],
      ],
      生命体征: [
        ['编号', 'sbp', 'dbp'],
        [codes[1]!, 120, 80],
      ],
    });
    const res = await importFile(file, { mode: 'patient' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.result).toMatchObject({ importedPatients: 1, skippedPatients: 1, updatedRecords: 1 });
    expect((await valuesOf(recordIds[0]!, '人口学资料'))[0]!.values.weight).toBe('72');
    expect(await valuesOf(recordIds[1]!, '生命体征')).toHaveLength(0);
    const trail = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.subjectRecordId, recordIds[0]!), eq(auditEvents.itemName, 'weight')))
      .orderBy(asc(auditEvents.id));
    expect(trail.at(-1)).toMatchObject({
      oldValue: 65,
      newValue: 72,
      reason: `数据导入（文件SHA-256：${sha(file)}）`,
    });
  });

  it('SRCH-06: the whole file is all or nothing: one bad row and nothing is written', async () => {
    const file = await workbook({
      人口学资料: [
        ['编号', 'weight'],
        [codes[0]!, 80],
        [codes[1]!, 999],
      ],
    });
    const before = await counts();
    const res = await importFile(file, { mode: 'file' });
    expect(res.status).toBe(200);
    expect(res.body.data.result).toMatchObject({ importedPatients: 0, skippedPatients: 2 });
    expect(res.body.data.result.errors[0]).toMatchObject({ sheet: '人口学资料', row: 3, column: 'weight' });
    expect(await counts()).toEqual(before);
    const fixed = await workbook({
      人口学资料: [
        ['编号', 'weight'],
        [codes[0]!, 80],
        [codes[1]!, 66],
      ],
    });
    const again = await importFile(fixed, { mode: 'file' });
    expect(again.body.data.result).toMatchObject({ importedPatients: 2, createdRecords: 1, updatedRecords: 1 });
  });

  it('SRCH-06: submitType 1 submits; a submitted form changes with the reason 数据导入 and stays submitted', async () => {
    const file = await workbook({
      生命体征: [
        ['编号', 'sbp', 'dbp', 'hr'],
        [codes[0]!, 130, 80, 70],
      ],
    });
    const res = await importFile(file, { submitType: '1' });
    expect(res.body.data.result).toMatchObject({ importedPatients: 1, createdRecords: 1 });
    const [record] = await valuesOf(recordIds[0]!, '生命体征');
    expect(record!.state).toBe(2);
    const change = await workbook({
      生命体征: [
        ['编号', 'hr'],
        [codes[0]!, 75],
      ],
    });
    const preview = await importFile(change, { dryRun: 'true' });
    expect(preview.body.data.rows[0]).toMatchObject({ submitted: true, action: 'update' });
    const changed = await importFile(change, {});
    expect(changed.body.data.result.updatedRecords).toBe(1);
    const [after] = await valuesOf(recordIds[0]!, '生命体征');
    expect(after).toMatchObject({ state: 2, values: expect.objectContaining({ hr: '75' }) });
    const [row] = await t.db
      .select()
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.crfDataRecordId, record!.id),
          eq(auditEvents.itemName, 'hr'),
          like(auditEvents.reason, '数据导入%'),
        ),
      )
      .orderBy(auditEvents.id);
    expect(row).toBeDefined();
    // Leaving a required item of a submitted form invalid is refused, as on the form page.
    const broken = await importFile(
      await workbook({
        生命体征: [
          ['编号', 'sbp'],
          [codes[0]!, 40],
        ],
      }),
      {},
    );
    expect(broken.body.data.result.importedPatients).toBe(0);
  });

  it("SRCH-06: a form the user may not edit is refused; another study's patient is unknown here; a non-member gets 403", async () => {
    const member = await addStudyMember(t, admin, studyId, '13300000061', {
      permissions: [crfKey(crfIds['生命体征']!, 'view'), crfKey(crfIds['生命体征']!, 'save')],
    });
    const file = await workbook({
      人口学资料: [
        ['编号', 'weight'],
        [codes[0]!, 90],
      ],
    });
    const refused = await importFile(file, { dryRun: 'true' }, member);
    expect(refused.body.data.sheetErrors[0]).toMatchObject({ sheet: '人口学资料', message: '您没有编辑此表单的权限' });
    const before = await counts();
    expect((await importFile(file, {}, member)).body.data.result.importedPatients).toBe(0);
    expect(await counts()).toEqual(before);

    const other = await t.call(admin, 'POST', '/api/business/study', {
      studyName: '导入另一项目',
      studyCode: 'IMP-OTHER',
    });
    const otherId = other.body.data.id as number;
    const stranger = await addStudyMember(t, admin, otherId, '13300000062', { permissions: [] });
    expect((await importFile(file, { dryRun: 'true' }, stranger)).status).toBe(403);
    const otherPatient = await t.call(admin, 'POST', '/api/business/subject', {
      studyId: otherId,
      subjectName: '别处',
      gender: 2,
      birth: '1970-01-01',
    });
    const otherCode = otherPatient.body.data?.identificationCode ?? 'OTHER-CODE';
    const foreign = await importFile(
      await workbook({
        生命体征: [
          ['编号', 'hr'],
          [otherCode, 70],
        ],
      }),
      { dryRun: 'true' },
    );
    expect(foreign.body.data.rows[0].errors[0].message).toBe('本项目中没有此患者编号');
  });
});

describe('image_urls', () => {
  const imageCrf = '影像学检查';
  const imageItem = 'xray';
  const send = (url: string) =>
    t.call(admin, 'POST', '/api/business/import/image_urls', {
      studyId,
      items: [{ identificationCode: codes[0], crf: imageCrf, item: imageItem, url }],
    });
  /**
   * images.test stands for a public server: its DNS answers (the test server's loopback address unless given)
   * and, for this test only, 127.0.0.1 counts as a public address; every other address is judged as in production.
   */
  const servePublicly = (answers: () => dns.LookupAddress[] = () => [{ address: '127.0.0.1', family: 4 }]) => {
    vi.spyOn(imageUrlNetwork, 'resolve').mockImplementation(async (name) => {
      if (name === 'images.test') return answers();
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    });
    vi.spyOn(imageUrlNetwork, 'refuses').mockImplementation(
      (a, ranges) => a !== '127.0.0.1' && isRefusedAddress(a, ranges),
    );
  };
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('SRCH-07: refuses other hosts and private, loopback and link-local literals before any request', async () => {
    for (const [url, message] of [
      ['http://example.org/a.png', '该主机不在允许的图片来源列表中'],
      ['http://127.0.0.1/a.png', '不允许访问内网或本机地址'],
      ['http://10.1.2.3/a.png', '不允许访问内网或本机地址'],
      ['http://169.254.169.254/latest/meta-data', '不允许访问内网或本机地址'],
      ['http://[::1]/a.png', '不允许访问内网或本机地址'],
      ['file:///etc/passwd', '只支持 http 和 https 地址'],
    ] as const) {
      const res = await send(url);
      expect(res.status, url).toBe(400);
      expect(res.body.data.errors[0].message, url).toBe(message);
    }
  });

  it('SRCH-07: refuses redirects to other hosts, non-images by their bytes and oversized images', async () => {
    servePublicly();
    const before = await t.db.select({ n: count() }).from(storedFiles);
    for (const [path, message] of [
      ['/away', 'URL 重定向到其他主机，已拒绝'],
      ['/loop', 'URL 重定向到其他主机，已拒绝'],
      ['/text.png', '地址返回的内容不是图片'],
      ['/big.png', '图片超过20MB'],
    ] as const) {
      const res = await send(`http://${imageHost}${path}`);
      expect(res.status, path).toBe(400);
      expect(res.body.data.errors[0].message, path).toBe(message);
    }
    expect(await t.db.select({ n: count() }).from(storedFiles)).toEqual(before);
  });

  it("SRCH-07: an allowed host (after a same-host redirect) and this platform's own file URL are attached and audited", async () => {
    servePublicly();
    const res = await send(`http://${imageHost}/same`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const fileKey = res.body.data[0].fileKey as string;
    const [file] = await t.db.select().from(storedFiles).where(eq(storedFiles.fileKey, fileKey));
    expect(file).toMatchObject({ contentType: 'image/png', sha256: sha(PNG), studyId });
    const own = await send(`/api/v1/fileupload/downfile?fileKey=${fileKey}`);
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    const [record] = await valuesOf(recordIds[0]!, imageCrf);
    expect(String(record!.values[imageItem])).toContain(fileKey);
    const trail = await t.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.crfDataRecordId, record!.id), eq(auditEvents.itemName, imageItem)))
      .orderBy(asc(auditEvents.id));
    expect(trail.at(-1)!.reason).toContain(`数据导入（图片URL，SHA-256：${sha(PNG)}`);
  });

  it('SRCH-07: a listed name that resolves to loopback, a private, link-local or unique-local address (IPv4, IPv6, IPv4-mapped) is refused, and nothing is requested', async () => {
    const before = requested.length;
    // Real DNS: localhost is loopback.
    const viaDns = await send(`http://${loopbackHost}/ok.png`);
    expect(viaDns.status).toBe(400);
    expect(viaDns.body.data.errors[0].message).toBe('不允许访问内网或本机地址');
    for (const answers of [
      ['10.0.0.5'],
      ['172.20.1.1'],
      ['192.168.1.20'],
      ['169.254.169.254'],
      ['::1'],
      ['fd12:3456::1'],
      ['fe80::1'],
      ['::ffff:127.0.0.1'],
      ['::ffff:a00:5'],
      // One private answer among public ones is enough: the connection could be made to any of them.
      ['203.0.113.9', '192.168.1.20'],
    ]) {
      vi.spyOn(imageUrlNetwork, 'resolve').mockResolvedValue(
        answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      );
      const res = await send(`http://${imageHost}/ok.png`);
      expect(res.status, answers.join()).toBe(400);
      expect(res.body.data.errors[0].message, answers.join()).toBe('不允许访问内网或本机地址');
    }
    expect(requested.slice(before)).toEqual([]);
  });

  it('SRCH-07: a listed name on an address inside a configured private range (EDC_IMAGE_URL_PRIVATE_NETWORKS) is fetched, connected to that address only; one outside the ranges is refused', async () => {
    // images.test answers an intranet address; the test's network carries a connection to it to the test server.
    const pinned: string[] = [];
    vi.spyOn(imageUrlNetwork, 'pin').mockImplementation((address) => {
      pinned.push(address.address);
      return pinnedLookup({ address: '127.0.0.1', family: 4 });
    });
    for (const address of ['10.20.0.7', 'fd00:12::7', '::ffff:10.20.0.7']) {
      vi.spyOn(imageUrlNetwork, 'resolve').mockResolvedValue([{ address, family: address.includes(':') ? 6 : 4 }]);
      const before = requested.length;
      const res = await send(`http://${imageHost}/same`);
      expect(res.status, `${address}: ${JSON.stringify(res.body)}`).toBe(200);
      // Both requests of the fetch (a same-host redirect) were pinned to the checked intranet address.
      expect(pinned.splice(0), address).toEqual([address, address]);
      expect(requested.slice(before), address).toEqual([`${imageHost} /same`, `${imageHost} /ok.png`]);
      const [file] = await t.db.select().from(storedFiles).where(eq(storedFiles.fileKey, res.body.data[0].fileKey));
      expect(file, address).toMatchObject({ contentType: 'image/png', sha256: sha(PNG), studyId });
    }
    const before = requested.length;
    for (const address of ['10.21.0.7', 'fd00:13::7', '192.168.1.20']) {
      vi.spyOn(imageUrlNetwork, 'resolve').mockResolvedValue([{ address, family: address.includes(':') ? 6 : 4 }]);
      const res = await send(`http://${imageHost}/ok.png`);
      expect(res.status, address).toBe(400);
      expect(res.body.data.errors[0].message, address).toBe('不允许访问内网或本机地址');
    }
    expect(pinned).toEqual([]);
    expect(requested.slice(before)).toEqual([]);
  });

  it('SRCH-07: a name is resolved once per fetch and every connection, a redirect’s too, goes to the address checked (no DNS rebinding)', async () => {
    let lookups = 0;
    servePublicly(() => {
      lookups += 1;
      // A rebinding name: public to the check, private to any later lookup.
      return [{ address: lookups === 1 ? '127.0.0.1' : '10.0.0.1', family: 4 }];
    });
    const before = requested.length;
    const res = await send(`http://${imageHost}/same`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(lookups).toBe(1);
    // Both requests reached the checked address under the URL's own name.
    expect(requested.slice(before)).toEqual([`${imageHost} /same`, `${imageHost} /ok.png`]);
  });
});
