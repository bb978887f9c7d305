import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { eq, sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { queryRows } from '../db/client.js';
import { crfDataRecords } from '../db/schema/index.js';
import { waitForJob } from '../modules/export/export.service.js';
import { multipart } from './multipart.js';
import type { TestApp } from './test-app.js';

/**
 * The issue-37 world a scope or lock test needs, made through the HTTP API as a data manager would: the AE module
 * on, the made-up MedDRA dictionary (fixtures/coding) loaded and 其他病史 coded, a serious AE's SAE report, a
 * quality run. Each helper fails the calling test with the server's answer when a step is refused.
 */

const MEDDRA = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/coding/meddra');
const HOUR = 3600_000;

const must = async (t: TestApp, token: string, method: string, url: string, body?: unknown) => {
  const res = await t.call(token, method, url, body);
  expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body.data;
};

/** Turns the AE module on: answers the AE log form's id. */
export async function enableAe(t: TestApp, token: string, studyId: number): Promise<number> {
  return (await must(t, token, 'PUT', '/api/business/safety/module', { studyId, enabled: true })).aeCrfId as number;
}

/** Loads the made-up MedDRA and codes 人口学资料's 其他病史 (history_note) against it. */
export async function setUpCoding(t: TestApp, token: string, studyId: number, historyCrfId: number) {
  const files = readdirSync(MEDDRA).map((fileName) => ({
    field: 'files',
    fileName,
    data: readFileSync(path.join(MEDDRA, fileName), 'utf8'),
  }));
  const body = multipart({}, files);
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/business/coding/dictionary?studyId=${studyId}&kind=meddra&version=1.0&language=zh`,
    headers: { ...body.headers, authorization: `Bearer ${token}` },
    payload: body.payload,
  });
  expect(res.statusCode, res.body).toBe(200);
  await must(t, token, 'PUT', '/api/business/coding/items', {
    studyId,
    items: [{ crfId: historyCrfId, itemName: 'history_note', kind: 'meddra' }],
  });
  return res.json().data.id as number;
}

/** Saves a form record (new, or the next version of one) and lets the subscribers (coding, safety) finish. */
export async function saveForm(
  t: TestApp,
  token: string,
  input: { subjectRecordId: number; crfId: number; values: Record<string, unknown>; crfDataRecordId?: number },
) {
  const [row] = input.crfDataRecordId
    ? await t.db.select().from(crfDataRecords).where(eq(crfDataRecords.id, input.crfDataRecordId))
    : [];
  const version = row?.version ?? 0;
  const data = await must(t, token, 'PUT', '/api/v3/business/crf', { ...input, version });
  await t.ctx.events.drain();
  return data.crfDataRecordId as number;
}

/** The study zone's wall clock (Asia/Shanghai) an hour before the server's now, as the datetime item stores it. */
export const anHourAgo = (t: TestApp) =>
  new Date(t.clock().getTime() + 7 * HOUR).toISOString().slice(0, 16).replace('T', ' ');

/** A serious AE (hospitalisation) known an hour ago: the save starts its SAE report. Answers the AE record's id. */
export function saveSeriousAe(t: TestApp, token: string, subjectRecordId: number, aeCrfId: number, term = '肺炎') {
  return saveForm(t, token, {
    subjectRecordId,
    crfId: aeCrfId,
    values: {
      ae_term: term,
      ae_start: '2026-11-20',
      ae_grade: '3',
      ae_causality: 'possible',
      ae_serious: '1',
      ae_criteria: ['hosp'],
      ae_aware: anHourAgo(t),
    },
  });
}

/** Starts a quality run and waits on its job's state (never on time); answers the run's id. */
export async function runQuality(t: TestApp, token: string, studyId: number, scope: object = { kind: 'study' }) {
  const started = await must(t, token, 'POST', '/api/business/quality/run', { studyId, scope });
  expect((await waitForJob(t.ctx, started.jobId, 60_000))?.state).toBe('done');
  return started.runId as number;
}

/** The study's tables a patient-level change of issue 37's writers touches, with the older patient tables. */
export const GCP_TABLES = [
  'audit_events',
  'crf_data_records',
  'subject_records',
  'doubts',
  'doubt_messages',
  'item_comments',
  'coded_items',
  'quality_findings',
  'sae_reports',
];

/** Every row of those tables of one study, hashed per table: "nothing was written" is "no hash changed". */
export async function studyFingerprint(t: TestApp, studyId: number, tables = GCP_TABLES) {
  const [row] = await queryRows<Record<string, string>>(
    t.db,
    sql`select ${sql.join(
      tables.map(
        (table) =>
          sql`(select md5(coalesce(string_agg(x::text, '|' order by x::text), '')) from ${sql.identifier(table)} x
            where x.study_id = ${studyId}) as ${sql.identifier(table)}`,
      ),
      sql`, `,
    )}`,
  );
  return row!;
}
