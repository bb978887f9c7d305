import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchCondition } from '@ecrf/core';
import { studies } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/**
 * Data retrieval (检索, and so the v2 export of a search) and the global search leave out a production study's
 * test patients (subjects.test: entered against drafts); a study in 测试 finds every patient. The patient list keeps
 * showing them, tagged 测试.
 */
describe('retrieval and global search leave out the test patients of a production study', () => {
  let t: TestApp;
  let admin: string;
  let studyId: number;
  let vitals: number;
  const normal = { subjectRecordId: 0, code: '' };
  const trial = { subjectRecordId: 0, code: '' };

  const enrol = async (subjectName: string, extra: object = {}) => {
    const res = await t.call(admin, 'POST', '/api/business/subject', {
      studyId,
      subjectName,
      gender: 1,
      birth: '1960-05-01',
      diseaseCode: 'LSS',
      ...extra,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const subjectRecordId = res.body.data.subjectRecordId as number;
    const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId,
      crfId: vitals,
      version: 0,
      values: { hr: 77, sbp: 188 },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    return { subjectRecordId, code: res.body.data.identificationCode as string };
  };
  const sbpAbove180 = () =>
    ({ kind: 'item', crfId: vitals, itemName: 'sbp', operator: 'gt', values: ['180'] }) as SearchCondition;
  /** The patients (casebook ids) a retrieval finds, with its total; no condition: every patient of the study. */
  const retrieve = async (conditions: SearchCondition[]) => {
    const res = await t.call(admin, 'POST', '/api/business/search/v2', {
      studyId,
      conditions: { join: 'and', groups: conditions.length ? [{ conditions }] : [] },
      columns: [{ kind: 'patient', field: 'identificationCode' }],
      pageNum: 1,
      pageSize: 100,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const ids = (res.body.data.list as Array<{ subjectRecordId: number }>).map((r) => r.subjectRecordId);
    expect(res.body.data.total).toBe(ids.length);
    return ids;
  };
  const globalHits = async (key: string) => {
    const res = await t.call(admin, 'GET', `/api/v1/base/other/searchall?key=${encodeURIComponent(key)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const groups = res.body.data as Array<{ type: string; hits: Array<{ title: string; path: string }> }>;
    return groups.find((g) => g.type === 'subject')?.hits ?? [];
  };

  beforeAll(async () => {
    t = await createTestApp();
    const demo = await openDemoStudy(t);
    ({ admin, studyId } = demo);
    vitals = demo.crfIds['生命体征']!;
    const [study] = await t.db.select().from(studies).where(eq(studies.studyId, studyId));
    expect(study!.mode).toBe('production');
    Object.assign(normal, await enrol('检索正式'));
    Object.assign(trial, await enrol('检索测试', { test: true }));
  });
  afterAll(() => t.close());

  it('the test patient stays in the patient list, tagged test', async () => {
    const list = await t.call(admin, 'POST', '/api/v3/business/subjectRecord/list', {
      studyId,
      pageNum: 1,
      pageSize: 50,
    });
    const rows = list.body.data.list as Array<{ id: number; test: boolean }>;
    expect(rows.find((r) => r.id === trial.subjectRecordId)).toMatchObject({ test: true });
    expect(rows.find((r) => r.id === normal.subjectRecordId)).toMatchObject({ test: false });
  });

  it('a retrieval finds the normal patient and not the test patient, with or without conditions', async () => {
    expect(await retrieve([sbpAbove180()])).toEqual([normal.subjectRecordId]);
    const everyone = await retrieve([]);
    expect(everyone).toContain(normal.subjectRecordId);
    expect(everyone).not.toContain(trial.subjectRecordId);
  });

  it('the global search finds the normal patient by code and by name, never the test patient', async () => {
    expect((await globalHits(normal.code)).map((h) => h.title)).toEqual([normal.code]);
    expect(await globalHits(trial.code)).toEqual([]);
    const byName = (await globalHits('检索')).map((h) => h.title);
    expect(byName).toEqual([normal.code]);
  });

  it('in a study in 测试 the retrieval and the global search find every patient', async () => {
    await t.db.update(studies).set({ mode: 'test' }).where(eq(studies.studyId, studyId));
    try {
      expect(new Set(await retrieve([sbpAbove180()]))).toEqual(
        new Set([normal.subjectRecordId, trial.subjectRecordId]),
      );
      expect((await globalHits(trial.code)).map((h) => h.title)).toEqual([trial.code]);
    } finally {
      await t.db.update(studies).set({ mode: 'production' }).where(eq(studies.studyId, studyId));
    }
  });
});
