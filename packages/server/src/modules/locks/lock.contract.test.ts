import {
  lockChangedSchema,
  lockRefusalDataSchema,
  lockStateSchema,
  studyLockHistorySchema,
  studyLockSchema,
} from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contractData, expectContract } from '../../test/contract.js';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/** The locks' answers, as the routes give them, against core's contract (locks.ts). */

let t: TestApp;
let admin: string;
let studyId: number;
let crfIds: Record<string, number>;
let subjectRecordId: number;

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, studyId, crfIds } = await openDemoStudy(t));
  ({ subjectRecordId } = await enrolDemoPatient(t, admin, studyId, { subjectName: '锁定契约' }));
});
afterAll(() => t.close());

const get = (url: string) => t.call(admin, 'GET', url);
const change = (body: object) => t.call(admin, 'PUT', '/api/business/lock', { studyId, ...body });

describe('the locks answer as core describes them', () => {
  it('locking a casebook, its state, the refusal, the lists and lifting it', async () => {
    const state = `/api/business/lock/state?studyId=${studyId}&subjectRecordId=${subjectRecordId}`;
    contractData(lockStateSchema, await get(state));
    const locked = contractData(
      lockChangedSchema,
      await change({ scope: 'subject', targetId: subjectRecordId, locked: true, reason: '核查完成' }),
    );
    expect(locked).not.toBeNull();
    expect(contractData(lockStateSchema, await get(state)).locked).toBe(true);

    const refused = await t.call(admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId,
      crfId: crfIds['生命体征'],
      version: 0,
      values: { hr: 70 },
    });
    expect(refused.status).toBe(423);
    expectContract(lockRefusalDataSchema, refused.body.data);

    contractData(z.array(studyLockSchema), await get(`/api/business/lock?studyId=${studyId}`));
    expect(
      contractData(
        lockChangedSchema,
        await change({ scope: 'subject', targetId: subjectRecordId, locked: false, reason: '需要更正' }),
      ),
    ).toBeNull();
    const history = contractData(
      z.array(studyLockHistorySchema),
      await get(`/api/business/lock/history?studyId=${studyId}`),
    );
    expect(history[0]!.unlockedAt).not.toBeNull();
  });
});
