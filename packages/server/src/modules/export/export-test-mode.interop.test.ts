import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { studies } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { runTool, skipWithout, VENDOR_DIR } from '../../test/external-tool.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/**
 * A test export's mark does not break the file for the program that reads it: PSPP and R haven open the .sav and
 * .dta and show the 测试数据 label; PSPP runs the SPSS syntax (its FILE LABEL) and R the labels.R script against
 * their data.csv; xmllint validates the marked ODM (comment, StudyDescription) against the ODM 1.3.2 schema.
 */

let t: TestApp;
let admin: string;
let studyId: number;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'test-mode-readers-'));
const LABEL = /^测试数据：腰椎管狭窄症/;

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, studyId } = await openDemoStudy(t));
  const res = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: '测试乙',
    gender: 0,
    birth: '1970-02-03',
    diseaseCode: 'LSS',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await t.db.update(studies).set({ mode: 'test' }).where(eq(studies.studyId, studyId));
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function exported(format: string): Promise<Buffer> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v3/business/search/export?wait=true',
    headers: { authorization: `Bearer ${admin}` },
    payload: { studyId, format },
  });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  expect(String(res.headers['content-disposition'])).toContain(encodeURIComponent('测试数据_'));
  return res.rawPayload;
}

async function unzip(file: Buffer, into: string) {
  fs.mkdirSync(into, { recursive: true });
  const zip = await JSZip.loadAsync(file);
  for (const [name, entry] of Object.entries(zip.files)) {
    fs.writeFileSync(path.join(into, name), await entry.async('nodebuffer'));
  }
}

const R_ENV = { LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8' };
const rLines = (script: string, cwd?: string) =>
  runTool('Rscript', ['-e', script], { cwd, env: R_ENV })
    .stdout.split('\n')
    .filter((l) => l !== '');

describe('test exports read by their programs', () => {
  it.skipIf(skipWithout('pspp'))(
    'PSPP: the .sav opens with its file label 测试数据：…; the SPSS syntax runs and sets it',
    async () => {
      const sav = path.join(dir, 'test.sav');
      fs.writeFileSync(sav, await exported('spss'));
      const info = runTool('pspp', ['-O', 'format=txt', '-o', '-'], { input: `SYSFILE INFO FILE='${sav}'.\n` }).stdout;
      expect(info).toMatch(/测试数据：腰椎管狭窄症/);

      const syntaxDir = path.join(dir, 'spss-syntax');
      await unzip(await exported('spssSyntax'), syntaxDir);
      const saved = path.join(syntaxDir, 'from-syntax.sav');
      // PSPP is Unicode throughout and refuses SPSS's SET UNICODE; the rest runs as written.
      const sps = path.join(syntaxDir, 'syntax.sps');
      const syntax = fs.readFileSync(sps, 'utf8').replace(/^SET UNICODE=ON\.\n/m, '');
      fs.writeFileSync(sps, `${syntax}SAVE OUTFILE='${saved}'.\n`);
      runTool('pspp', ['-O', 'format=txt', '-o', path.join(syntaxDir, 'out.txt'), 'syntax.sps'], { cwd: syntaxDir });
      const fromSyntax = runTool('pspp', ['-O', 'format=txt', '-o', '-'], {
        input: `SYSFILE INFO FILE='${saved}'.\n`,
      }).stdout;
      expect(fromSyntax).toMatch(/测试数据：腰椎管狭窄症/);
      const cases = runTool('pspp', ['-O', 'format=csv', '-o', '-'], {
        input: `GET FILE='${saved}'.\nLIST subject_code.\n`,
      }).stdout;
      expect(cases).not.toContain('测试数据：本文件');
    },
  );

  it.skipIf(skipWithout('R'))(
    'R haven: the .dta keeps its data label 测试数据：…; labels.R reads data.csv and labels the data frame',
    async () => {
      const dta = path.join(dir, 'test.dta');
      fs.writeFileSync(dta, await exported('stata'));
      const [label] = rLines(`library(haven); d <- read_dta(${JSON.stringify(dta)}); cat(attr(d, "label"), "\\n")`);
      expect(label?.trim()).toMatch(LABEL);

      const rDir = path.join(dir, 'stata-syntax');
      await unzip(await exported('stataSyntax'), rDir);
      const out = rLines(
        'source("labels.R"); cat(attr(data, "label"), "\\n"); cat(names(data)[1], nrow(data), "\\n")',
        rDir,
      );
      expect(out[0]?.trim()).toMatch(LABEL);
      expect(out[1]?.trim()).toMatch(/^subject_code [1-9]\d*$/);
    },
  );

  it.skipIf(skipWithout('xmllint'))('xmllint: the marked ODM validates against the ODM 1.3.2 schema', async () => {
    const xml = path.join(dir, 'test.xml');
    fs.writeFileSync(xml, await exported('odm'));
    const schema = path.join(VENDOR_DIR, 'odm-1.3.2', 'ODM1-3-2.xsd');
    const { stderr } = runTool('xmllint', ['--noout', '--schema', schema, xml]);
    expect(stderr).toContain('validates');
  });
});
