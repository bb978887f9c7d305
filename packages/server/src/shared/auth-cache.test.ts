import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crfKey } from '@ecrf/core';
import { authGeneration, studyPersonnel, studyRoles, users } from '../db/schema/index.js';
import { openDemoStudy } from '../test/demo.js';
import { addStudyMember } from '../test/study-member.js';
import { createTestApp, type TestApp } from '../test/test-app.js';

/**
 * Permissions and study memberships are cached per auth generation (auth-cache.ts). Every change below is made
 * straight in the database, as another app server would make it: the next request must see it all the same.
 */
let t: TestApp;
let admin: string;
let studyId: number;
let crfId: number;

beforeAll(async () => {
  t = await createTestApp();
  const demo = await openDemoStudy(t);
  ({ admin, studyId } = demo);
  crfId = demo.crfIds['生命体征']!;
});
afterAll(() => t.close());

const generation = async () => (await t.db.select().from(authGeneration))[0]!.generation;

async function member(userName: string) {
  const token = await addStudyMember(t, admin, studyId, userName, {
    permissions: [crfKey(crfId, 'view'), crfKey(crfId, 'save')],
  });
  const [user] = await t.db.select().from(users).where(eq(users.userName, userName));
  const enrolled = await t.call(admin, 'POST', '/api/business/subject', {
    studyId,
    subjectName: '缓存甲',
    gender: 1,
    diseaseCode: 'LSS',
  });
  return { token, userId: user!.userId, subjectRecordId: enrolled.body.data.subjectRecordId as number };
}

const readForm = (token: string, subjectRecordId: number) =>
  t.call(token, 'GET', `/api/v3/business/crf/${subjectRecordId}?crfId=${crfId}`);

describe('cached permissions follow every change at once', () => {
  it('a change to study staff, study roles or users raises the generation in the same transaction', async () => {
    const before = await generation();
    await t.db.update(studyRoles).set({ roleName: '改名' }).where(eq(studyRoles.studyId, -1));
    expect(await generation()).toBe(before + 1);
  });

  it('a member removed from the study is refused on the very next request', async () => {
    const m = await member('13700000101');
    expect((await readForm(m.token, m.subjectRecordId)).status).toBe(200);
    expect((await readForm(m.token, m.subjectRecordId)).status).toBe(200);
    await t.db.delete(studyPersonnel).where(eq(studyPersonnel.userId, m.userId));
    const refused = await readForm(m.token, m.subjectRecordId);
    expect(refused.status).toBe(403);
  });

  it("a permission taken from the member's study role is refused on the very next request", async () => {
    const m = await member('13700000102');
    expect((await readForm(m.token, m.subjectRecordId)).status).toBe(200);
    const [staff] = await t.db.select().from(studyPersonnel).where(eq(studyPersonnel.userId, m.userId));
    await t.db.update(studyRoles).set({ permissions: [] }).where(eq(studyRoles.id, staff!.studyRoleId));
    expect((await readForm(m.token, m.subjectRecordId)).status).toBe(403);
  });

  it('a disabled user is signed out on the very next request (the session is never cached)', async () => {
    const m = await member('13700000103');
    expect((await readForm(m.token, m.subjectRecordId)).status).toBe(200);
    await t.db.update(users).set({ status: 1 }).where(eq(users.userId, m.userId));
    expect((await readForm(m.token, m.subjectRecordId)).status).toBe(401);
  });

  it('a signed-out session ends its token at once', async () => {
    const m = await member('13700000104');
    expect((await readForm(m.token, m.subjectRecordId)).status).toBe(200);
    expect((await t.call(m.token, 'POST', '/api/sys/logout', {})).status).toBe(200);
    expect((await readForm(m.token, m.subjectRecordId)).status).toBe(401);
  });
});
