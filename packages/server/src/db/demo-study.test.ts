import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ITEM_TYPES, lintDefinition, type CrfNode } from '@ecrf/core';
import { createTestApp, type TestApp } from '../test/test-app.js';
import { DEMO_STUDY_CODE, demoCrfs, seedDemoStudy } from './demo-study.js';
import { studies } from './schema/index.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('demo study', () => {
  it('its CRFs pass the linter and together use every item type, skip logic, calculations and checks', () => {
    const used = new Set<string>();
    const options: string[] = [];
    const walk = (nodes: CrfNode[]) =>
      nodes.forEach((n) => {
        used.add(n.type);
        options.push(...Object.keys(n.option ?? {}));
        walk(n.children ?? []);
      });
    for (const { definition } of demoCrfs()) {
      const lint = lintDefinition(definition);
      expect(lint.errors, definition.title).toEqual([]);
      walk(definition.children);
    }
    expect([...ITEM_TYPES].filter((type) => !used.has(type))).toEqual([]);
    for (const option of [
      'trig',
      'trigex',
      'showIf',
      'calc',
      'checks',
      'refValueMaleMin',
      'units',
      'addition',
      'defaultValue',
    ]) {
      expect(options).toContain(option);
    }
  });

  it('is seeded once with the administrator as staff, its stages and a repeatable follow-up form', async () => {
    expect(await seedDemoStudy(t.db)).toBe(true);
    expect(await seedDemoStudy(t.db)).toBe(false);
    const { token } = await t.login();
    const mine = await t.call(token, 'GET', '/api/business/study/list');
    const demo = mine.body.data.list.find((s: { studyCode: string }) => s.studyCode === DEMO_STUDY_CODE);
    expect(demo).toMatchObject({
      enableSerialNumber: true,
      myRole: { roleName: '项目管理员' },
      diseases: [{ diseaseCode: 'LSS' }, { diseaseCode: 'LDS' }],
    });
    const stages = (await t.call(token, 'GET', `/api/business/crf_menu/crf_stages?studyId=${demo.id}`)).body.data;
    expect(stages.map((s: { name: string }) => s.name)).toEqual(['基线', '手术', '术后随访']);
    expect(stages[2].crfs[0]).toMatchObject({ title: '术后随访', repeat: 0 });
    const roles = (await t.call(token, 'GET', `/api/system/studyRoles?studyId=${demo.id}`)).body.data;
    const crfList = (await t.call(token, 'GET', `/api/system/crf/list?studyId=${demo.id}`)).body.data;
    for (const crf of crfList) expect(roles[0].permissions).toContain(`crf:${crf.id}:submit`);
    // Deleting the demo does not bring it back at the next start.
    await t.call(token, 'DELETE', `/api/business/study/${demo.id}`);
    expect(await seedDemoStudy(t.db)).toBe(false);
    expect(
      (await t.db.select().from(studies).where(eq(studies.studyCode, DEMO_STUDY_CODE)))[0]!.deletedAt,
    ).not.toBeNull();
  });
});
