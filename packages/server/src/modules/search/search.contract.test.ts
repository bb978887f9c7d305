import {
  exportableCrfSchema,
  searchDicsSchema,
  searchResultSchema,
  searchTemplateSavedSchema,
  searchTemplateSchema,
} from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contractData } from '../../test/contract.js';
import { enrolDemoPatient, openDemoStudy } from '../../test/demo.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/** Data retrieval's answers, as the routes give them, against core's contract (search-contract.ts). */

let t: TestApp;
let admin: string;
let studyId: number;
let crfIds: Record<string, number>;

beforeAll(async () => {
  t = await createTestApp();
  ({ admin, studyId, crfIds } = await openDemoStudy(t));
  const { subjectRecordId } = await enrolDemoPatient(t, admin, studyId, { subjectName: '检索契约' });
  const saved = await t.call(admin, 'PUT', '/api/v3/business/crf', {
    subjectRecordId,
    crfId: crfIds['生命体征'],
    version: 0,
    values: { sbp: 150 },
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
});
afterAll(() => t.close());

const get = (url: string) => t.call(admin, 'GET', url);

describe('data retrieval answers as core describes them', () => {
  it('the dictionary, a search, the exportable forms and templates', async () => {
    const dics = contractData(searchDicsSchema, await get(`/api/business/search/dics?studyId=${studyId}`));
    expect(dics.crfs.length).toBeGreaterThan(0);
    const body = {
      studyId,
      conditions: {
        join: 'and',
        groups: [
          {
            conditions: [{ kind: 'item', crfId: crfIds['生命体征'], itemName: 'sbp', operator: 'gt', values: ['140'] }],
          },
        ],
      },
      columns: [
        { kind: 'patient', field: 'identificationCode' },
        { kind: 'item', crfId: crfIds['生命体征'], itemName: 'sbp' },
      ],
      pageNum: 1,
      pageSize: 10,
    };
    const result = contractData(searchResultSchema, await t.call(admin, 'POST', '/api/business/search/v2', body));
    expect(result.list).toHaveLength(1);
    contractData(z.array(exportableCrfSchema), await get(`/api/business/search/export/crfs?studyId=${studyId}`));

    const { conditions, columns } = body;
    contractData(
      searchTemplateSavedSchema,
      await t.call(admin, 'POST', '/api/business/search/template', {
        studyId,
        name: '高血压',
        shared: true,
        conditions,
        columns,
      }),
    );
    const templates = contractData(
      z.array(searchTemplateSchema),
      await get(`/api/business/search/all_templates?studyId=${studyId}`),
    );
    expect(templates).toHaveLength(1);
  });
});
