import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { exportFile } from '../../test/export-fixture.js';
import { runTool, skipWithout, VENDOR_DIR } from '../../test/external-tool.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/**
 * 缺失原因 (issue 37) in the ODM export: a marked item is an ItemData without a Value whose Annotation carries a Flag
 * (FlagValue the code in CL.MISSING, FlagType MISSING in CL.FLAGTYPE); the MetaDataVersion lists both code lists.
 * The file validates against the official ODM 1.3.2 schema (xmllint).
 */
const SCHEMA = path.join(VENDOR_DIR, 'odm-1.3.2', 'ODM1-3-2.xsd');

describe.skipIf(skipWithout('xmllint'))('missing-data codes in ODM 1.3.2', () => {
  let t: TestApp;
  let admin: string;
  let studyId: number;
  let code: string;
  let dir: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'odm-missing-'));
    t = await createTestApp();
    const demo = await openDemoStudy(t);
    ({ admin, studyId } = demo);
    const patient = await enrolDemoPatient(t, admin, studyId, { subjectName: 'ODM缺失' });
    code = patient.identificationCode;
    const res = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId: patient.subjectRecordId,
      crfId: demo.crfIds['生命体征'],
      version: 0,
      values: { dbp: '80' },
      missing: { sbp: 'ND' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the marked item carries its code as a Flag, the code lists are in the metadata, and the file validates', async () => {
    const xml = (await exportFile(t, { admin, studyId }, { format: 'odm' })).toString('utf8');
    const subject = xml.slice(xml.indexOf(`<SubjectData SubjectKey="${code}">`));
    const mark = subject
      .slice(0, subject.indexOf('</SubjectData>'))
      .match(/<ItemData ItemOID="([^"]+)">(.*?)<\/ItemData>/);
    expect(mark).not.toBeNull();
    expect(mark![1]).toMatch(/sbp/i);
    expect(mark![2]).toBe(
      '<Annotation SeqNum="1"><Flag><FlagValue CodeListOID="CL.MISSING">ND</FlagValue><FlagType CodeListOID="CL.FLAGTYPE">MISSING</FlagType></Flag></Annotation>',
    );
    expect(xml).toMatch(/<CodeList OID="CL\.MISSING"[^>]*><CodeListItem CodedValue="ND"><Decode>.*未查/);
    expect(xml).toContain('<CodeList OID="CL.FLAGTYPE"');
    const file = path.join(dir, 'missing.xml');
    fs.writeFileSync(file, xml);
    const { stderr } = runTool('xmllint', ['--noout', '--schema', SCHEMA, file]);
    expect(stderr).toContain('validates');
  });
});
