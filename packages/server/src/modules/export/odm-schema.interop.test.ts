import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importOdm, readOdmClinicalData } from '@ecrf/core/interop';
import { crfStages } from '../../db/schema/index.js';
import {
  exportFile,
  seedExportFixture,
  SPECIFY_TEXT,
  STORED,
  STORED_NAMES,
  type ExportFixture,
} from '../../test/export-fixture.js';
import { runTool, skipWithout, VENDOR_DIR } from '../../test/external-tool.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/**
 * Every ODM file the platform writes, validated by xmllint against the official CDISC ODM 1.3.2 schema (the
 * stock files in the vendor folder, unchanged): the data export of the demo study under each option the 导出
 * dialog offers, and each form's definition export. A second pass writes every ItemData as the typed element of
 * its ItemDef's DataType (ItemDataDatetime, ItemDataBoolean, …), so the schema also checks each value's lexical
 * form: date-times with `T` and seconds, times with seconds, 1/0 booleans, numbers.
 */
const SCHEMA = path.join(VENDOR_DIR, 'odm-1.3.2', 'ODM1-3-2.xsd');

const TYPED: Record<string, string> = {
  integer: 'Integer',
  float: 'Float',
  double: 'Double',
  date: 'Date',
  datetime: 'Datetime',
  time: 'Time',
  boolean: 'Boolean',
  text: 'String',
  string: 'String',
  partialDate: 'PartialDate',
  partialTime: 'PartialTime',
  partialDatetime: 'PartialDatetime',
  incompleteDate: 'IncompleteDate',
  incompleteDatetime: 'IncompleteDatetime',
  URI: 'URI',
};

/** The file with each ItemData as the typed ItemData element of its ItemDef's DataType. */
function typedItemData(xml: string): string {
  const dataTypes = new Map(
    [...xml.matchAll(/<ItemDef OID="([^"]+)"[^>]* DataType="([^"]+)"/g)].map((m) => [m[1]!, m[2]!]),
  );
  return xml.replace(/<ItemData ItemOID="([^"]+)" Value="([^"]*)"\/>/g, (_, oid: string, value: string) => {
    const type = TYPED[dataTypes.get(oid) ?? ''];
    expect(type, `DataType of ${oid}`).toBeDefined();
    return `<ItemData${type} ItemOID="${oid}">${value}</ItemData${type}>`;
  });
}

let dir: string;
function validate(name: string, xml: string) {
  const typed = typedItemData(xml);
  expect(typed).not.toContain('<ItemData ');
  for (const [suffix, text] of [
    ['', xml],
    ['.typed', typed],
  ] as const) {
    const file = path.join(dir, `${name}${suffix}.xml`);
    fs.writeFileSync(file, text);
    const { stderr } = runTool('xmllint', ['--noout', '--schema', SCHEMA, file]);
    expect(stderr).toContain('validates');
  }
}

describe.skipIf(skipWithout('xmllint'))('ODM 1.3.2 files against the official schema (xmllint)', () => {
  let t: TestApp;
  let fixture: ExportFixture;
  const stageIds: Record<string, number> = {};

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'odm-schema-'));
    t = await createTestApp();
    fixture = await seedExportFixture(t);
    for (const s of await t.db.select().from(crfStages)) stageIds[s.name] = s.id;
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the data export validates with every option of the dialog', async () => {
    const variants: Record<string, object> = {
      plain: {},
      labels: { labels: true },
      identifiers: { identifiers: true },
      dateShift: { dateShiftDays: 30 },
      everyState: { states: ['notFilled', 'saved', 'submitted', 'doubt', 'signed', 'sdv'] },
      someForms: { crfIds: [fixture.crfIds['人口学资料'], fixture.crfIds['术后随访']] },
      oneStage: { stageIds: [stageIds['术后随访']] },
    };
    for (const [name, options] of Object.entries(variants)) {
      validate(name, (await exportFile(t, fixture, { format: 'odm', ...options })).toString('utf8'));
    }
    const subjectRecordIds = [fixture.ids.A, fixture.ids.B];
    validate('v2', (await exportFile(t, fixture, { format: 'odm', subjectRecordIds }, 'v2')).toString('utf8'));
  });

  it('each form’s definition export validates, and reads back into the same form', async () => {
    for (const [title, crfId] of Object.entries(fixture.crfIds)) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/system/crf/export',
        headers: { authorization: `Bearer ${fixture.admin}` },
        payload: { crfId, format: 'odm' },
      });
      expect(res.statusCode, title).toBe(200);
      validate(`definition-${crfId}`, res.body);
      expect(
        importOdm(res.body).issues.filter((i) => i.severity === 'error'),
        title,
      ).toEqual([]);
    }
  });

  it('the values are in ODM’s forms: one 1/0 per checkbox option, the 其他（请注明） text, T and seconds, files by name', async () => {
    const xml = (await exportFile(t, fixture, { format: 'odm' })).toString('utf8');
    for (const typed of ['Datetime', 'Time', 'Boolean', 'Date', 'IncompleteDate', 'Integer', 'Float', 'String']) {
      expect(typedItemData(xml)).toContain(`<ItemData${typed} `);
    }
    const of = (item: string) =>
      readOdmClinicalData(xml)
        .filter((v) => v.subjectKey === fixture.codes.A && v.itemOid.endsWith(`.${item}`))
        .map((v) => v.value);
    expect([...['htn', 'dm', 'chd', 'op', 'other'].flatMap((c) => of(`comorbid___${c}`))]).toEqual([
      '0',
      '1',
      '0',
      '0',
      '1',
    ]);
    expect(of('comorbid')).toEqual([]);
    expect(of('comorbid_addition')).toEqual([SPECIFY_TEXT]);
    expect(of('vs_at')).toEqual(['2026-01-10T08:30:00']);
    expect(of('vs_time')).toEqual(['08:30:00']);
    expect(of('lab_at')).toEqual(['2026-01-10T09:00:00']);
    expect(of('reop_date')).toEqual(['2026-03']);
    expect(of('lab_report')).toEqual([STORED_NAMES.report]);
    expect(of('xray')).toEqual([`${STORED_NAMES.xray}（正位）`]);
    expect(xml).not.toContain(STORED.report);
    expect(xml).not.toContain(STORED.xray);
    // Every skip rule of the demo is a ConditionDef on the items it hides (trig, trigex, showIf, the addition box).
    for (const oid of [
      'IG.*\\.smoke_detail',
      'I.*\\.packs',
      'I.*\\.dm_years',
      'IG.*\\.complication_detail',
      'I.*\\.reop_date',
      'I.*\\.comorbid_addition',
    ]) {
      expect(xml).toMatch(new RegExp(`<ConditionDef OID="COND\\.${oid}"`));
    }
  });
});
