import { doubtDetailSchema, doubtOpenedSchema, doubtSchema, doubtWaitingSchema } from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contractData, pageOf } from '../../test/contract.js';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/** The queries' answers, as the routes give them, against core's contract (doubt-contract.ts). */

let t: TestApp;
let admin: string;
let studyId: number;
let crfDataRecordId: number;

beforeAll(async () => {
  t = await createTestApp();
  let crfIds: Record<string, number>;
  ({ admin, studyId, crfIds } = await openDemoStudy(t));
  const { subjectRecordId } = await enrolDemoPatient(t, admin, studyId, { subjectName: '质疑契约' });
  const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId,
    crfId: crfIds['生命体征'],
    version: 0,
    values: { hr: 72 },
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  crfDataRecordId = saved.body.data.crfDataRecordId;
});
afterAll(() => t.close());

const get = (url: string) => t.call(admin, 'GET', url);

describe('the queries answer as core describes them', () => {
  it('raising, the thread, replying, re-opening, closing, the list and the waiting count', async () => {
    const { doubtId } = contractData(
      doubtOpenedSchema,
      await t.call(admin, 'POST', '/api/business/doubt/open', {
        crfDataRecordId,
        itemName: 'hr',
        doubtDescription: '请核实心率',
      }),
    );
    contractData(doubtWaitingSchema, await get(`/api/business/doubts/count?studyId=${studyId}`));
    contractData(doubtDetailSchema, await get(`/api/business/doubt/${doubtId}`));
    const reply = await t.call(admin, 'PUT', '/api/business/doubt/reply', { doubtId, content: '已核实' });
    expect(contractData(z.null(), reply)).toBeNull();
    contractData(
      doubtOpenedSchema,
      await t.call(admin, 'POST', '/api/business/doubt/open', { doubtId, doubtDescription: '仍不一致' }),
    );
    const closed = await t.call(admin, 'PUT', '/api/business/doubt/close', { doubtId, content: '关闭' });
    expect(contractData(z.null(), closed)).toBeNull();
    const detail = contractData(doubtDetailSchema, await get(`/api/business/doubt/${doubtId}`));
    expect(detail.messages.map((m) => m.kind)).toEqual(['open', 'reply', 'reopen', 'close']);
    const list = contractData(pageOf(doubtSchema), await get(`/api/business/doubts?studyId=${studyId}&pageNum=1`));
    expect(list.total).toBeGreaterThan(0);
  });
});
