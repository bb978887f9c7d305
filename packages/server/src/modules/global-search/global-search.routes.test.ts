import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { dataChangeInfos, experts, knowledgeArticles, knowledgeTypes } from '../../db/schema/index.js';
import { openDemoStudy } from '../../test/demo.js';
import { addStudyMember } from '../../test/study-member.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';
import { registerSearchSource, searchSources, unregisterSearchSource } from './global-search.service.js';

interface Group {
  type: string;
  label: string;
  hits: { type: string; id: number; title: string; description: string | null; studyId: number; path: string }[];
}

describe('全局搜索 searchall and addsysdatachangeinfo', () => {
  let t: TestApp;
  let admin: string;
  let studyId: number;
  let crfIds: Record<string, number>;
  let otherStudyId: number;
  let clearMember: string;
  let maskedMember: string;
  let maskedMemberId: number;
  let outsider: string;
  let code: string;
  let subjectRecordId: number;
  const pushes: { userId: number; event: string; payload: unknown }[] = [];

  const search = async (token: string, key: string) => {
    const res = await t.call(token, 'GET', `/api/v1/base/other/searchall?key=${encodeURIComponent(key)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as Group[];
  };
  const hitsOf = (groups: Group[], type: string) => groups.find((g) => g.type === type)?.hits ?? [];

  beforeAll(async () => {
    t = await createTestApp();
    ({ admin, studyId, crfIds } = await openDemoStudy(t));
    const enrolled = await t.call(admin, 'POST', '/api/business/subject', {
      studyId,
      subjectName: '李雷',
      gender: 1,
      diseaseCode: 'LSS',
    });
    subjectRecordId = enrolled.body.data.subjectRecordId;
    const list = await t.call(admin, 'POST', '/api/v3/business/subjectRecord/list', {
      studyId,
      pageNum: 1,
      pageSize: 10,
    });
    code = list.body.data.list.find(
      (r: { subjectRecordId: number }) => r.subjectRecordId === subjectRecordId,
    ).identificationCode;
    const other = await t.call(admin, 'POST', '/api/business/study', {
      studyName: '搜索外项目',
      studyCode: 'SEARCH-X',
      diseases: [{ diseaseName: '腰椎管狭窄', diseaseCode: 'LSS' }],
    });
    otherStudyId = other.body.data.id ?? other.body.data.studyId;
    const foreign = await t.call(admin, 'POST', '/api/business/subject', {
      studyId: otherStudyId,
      identificationCode: 'SX-001',
      subjectName: '李外人',
      gender: 0,
      diseaseCode: 'LSS',
    });
    expect(foreign.status, JSON.stringify(foreign.body)).toBe(200);
    const firstCrf = Object.entries(crfIds)[0]!;
    clearMember = await addStudyMember(t, admin, studyId, '13900000501', {
      permissions: ['btn:business.subject.identifiers', `crf:${firstCrf[1]}:view`],
    });
    maskedMember = await addStudyMember(t, admin, studyId, '13900000502', { permissions: [] });
    maskedMemberId = (await t.call(maskedMember, 'GET', '/api/sys/login/getInfo')).body.data.user.userId;
    outsider = await addStudyMember(t, admin, otherStudyId, '13900000503', { permissions: [] });
    const toUser = t.ctx.realtime.toUser.bind(t.ctx.realtime);
    vi.spyOn(t.ctx.realtime, 'toUser').mockImplementation((userId, event, payload) => {
      pushes.push({ userId, event, payload });
      toUser(userId, event, payload);
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('SHELL-33: a member with 查看患者身份信息 finds a patient by code and by name, with the name and the casebook to open', async () => {
    const byCode = hitsOf(await search(clearMember, code), 'subject');
    expect(byCode).toEqual([
      {
        type: 'subject',
        id: expect.any(Number),
        title: code,
        description: expect.stringMatching(/^李雷 · /),
        studyId,
        path: `/crf/${subjectRecordId}`,
      },
    ]);
    const byName = hitsOf(await search(clearMember, '李'), 'subject');
    expect(byName.map((h) => h.title)).toEqual([code]);
  });

  it('SHELL-33: a member without it finds the patient by code only, the name masked; a name search finds nothing', async () => {
    const byCode = hitsOf(await search(maskedMember, code), 'subject');
    expect(byCode).toHaveLength(1);
    expect(byCode[0]!.description).toMatch(/^李\* · /);
    expect(JSON.stringify(await search(maskedMember, code))).not.toContain('李雷');
    expect(hitsOf(await search(maskedMember, '李雷'), 'subject')).toEqual([]);
  });

  it('SHELL-33: never answers patients, studies or forms of studies the caller is not in', async () => {
    const mine = await search(clearMember, '李');
    expect(JSON.stringify(mine)).not.toContain('李外人');
    expect(hitsOf(await search(clearMember, 'SX-001'), 'subject')).toEqual([]);
    expect(hitsOf(await search(clearMember, '搜索外项目'), 'study')).toEqual([]);
    // The outsider sees no names: found by code in their own study only.
    expect(hitsOf(await search(outsider, '李'), 'subject')).toEqual([]);
    const theirs = await search(outsider, 'S');
    expect(hitsOf(theirs, 'subject').map((h) => h.title)).toEqual(['SX-001']);
    expect(JSON.stringify(theirs)).not.toContain(code);
    // The administrator (study:manage) sees every study.
    expect(hitsOf(await search(admin, '李'), 'subject')).toHaveLength(2);
  });

  it('SHELL-33: studies by name and forms by title, only the forms the caller may view', async () => {
    const [title, crfId] = Object.entries(crfIds)[0]!;
    const study = hitsOf(await search(maskedMember, '搜索'), 'study');
    expect(study).toEqual([]);
    const studyName = (await t.call(admin, 'GET', `/api/business/study/${studyId}`)).body.data.studyName as string;
    expect(hitsOf(await search(maskedMember, studyName), 'study')).toEqual([
      { type: 'study', id: studyId, title: studyName, description: null, studyId, path: `/project/${studyId}/home` },
    ]);
    expect(hitsOf(await search(clearMember, title), 'crf')).toContainEqual(
      expect.objectContaining({ id: crfId, title, path: `/crf/detail/${crfId}` }),
    );
    expect(hitsOf(await search(maskedMember, title), 'crf')).toEqual([]);
  });

  it('SHELL-33: an empty key answers nothing, an anonymous caller 401, and a registered source joins the answer', async () => {
    expect(await search(clearMember, '   ')).toEqual([]);
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/v1/base/other/searchall?key=a' });
    expect(anonymous.statusCode).toBe(401);
    const before = searchSources().length;
    registerSearchSource({
      type: 'test-extra',
      label: '测试',
      order: 99,
      search: async (_ctx, scope) => [
        {
          type: 'test-extra',
          id: 1,
          title: `命中 ${scope.key}`,
          description: null,
          studyId: null,
          path: '/studyList',
        },
      ],
    });
    try {
      const groups = await search(maskedMember, 'zz');
      expect(groups.at(-1)).toMatchObject({ type: 'test-extra', label: '测试', hits: [{ title: '命中 zz' }] });
      expect(searchSources()).toHaveLength(before + 1);
    } finally {
      unregisterSearchSource('test-extra');
    }
    expect(searchSources()).toHaveLength(before);
  });

  it('SHELL-33: published knowledge articles (platform-wide or of the caller’s studies) and the study’s experts join the answer', async () => {
    const [type] = await t.db.insert(knowledgeTypes).values({ name: '术后康复' }).returning();
    await t.db.insert(knowledgeArticles).values([
      { typeId: type!.id, title: '腰椎术后康复操', content: '<p>a</p>', status: 'published' },
      { typeId: type!.id, studyId, title: '腰椎术后饮食', content: '<p>b</p>', status: 'published' },
      { typeId: type!.id, studyId, title: '腰椎术后草稿', content: '<p>c</p>', status: 'draft' },
      { typeId: type!.id, studyId: otherStudyId, title: '腰椎术后外项目', content: '<p>d</p>', status: 'published' },
    ]);
    await t.db.insert(experts).values([
      { studyId, name: '周医生', title: '主任医师' },
      { studyId: otherStudyId, name: '周外医生' },
    ]);
    const groups = await search(maskedMember, '腰椎术后');
    expect(hitsOf(groups, 'knowledge').map((h) => h.title)).toEqual(['腰椎术后康复操', '腰椎术后饮食']);
    expect(groups.find((g) => g.type === 'knowledge')!.label).toBe('知识库');
    const doctors = hitsOf(await search(maskedMember, '周'), 'expert');
    expect(doctors).toEqual([expect.objectContaining({ title: '周医生', path: '/project/expert' })]);
  });

  it('SHELL-32: records changed scopes and tells the study’s staff through the hub; platform scopes reach every user', async () => {
    pushes.length = 0;
    const res = await t.call(clearMember, 'POST', '/api/v1/base/other/addsysdatachangeinfo', {
      scope: 'subject, crf,subject,',
      studyId,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.scopes).toEqual(['subject', 'crf']);
    const [row] = await t.db.select().from(dataChangeInfos).where(eq(dataChangeInfos.id, res.body.data.id));
    expect(row).toMatchObject({ studyId, scope: 'subject,crf' });
    const clearId = (await t.call(clearMember, 'GET', '/api/sys/login/getInfo')).body.data.user.userId;
    expect(pushes).toContainEqual({
      userId: maskedMemberId,
      event: 'data.changed',
      payload: { studyId, scopes: ['subject', 'crf'], by: clearId },
    });
    const outsiderId = (await t.call(outsider, 'GET', '/api/sys/login/getInfo')).body.data.user.userId;
    expect(pushes.map((p) => p.userId)).not.toContain(outsiderId);

    pushes.length = 0;
    const platform = await t.call(admin, 'POST', '/api/v1/base/other/addsysdatachangeinfo', { scope: 'menu' });
    expect(platform.status).toBe(200);
    expect(pushes.map((p) => p.userId)).toContain(outsiderId);
  });

  it('SHELL-32: refuses a study the caller is not in, an empty list and names that are not scope names', async () => {
    const foreign = await t.call(outsider, 'POST', '/api/v1/base/other/addsysdatachangeinfo', {
      scope: 'subject',
      studyId,
    });
    expect(foreign.status).toBe(403);
    expect((await t.call(outsider, 'POST', '/api/v1/base/other/addsysdatachangeinfo', { scope: ' , ' })).status).toBe(
      400,
    );
    expect(
      (await t.call(outsider, 'POST', '/api/v1/base/other/addsysdatachangeinfo', { scope: '患者,<script>' })).status,
    ).toBe(400);
    const anonymous = await t.app.inject({
      method: 'POST',
      url: '/api/v1/base/other/addsysdatachangeinfo',
      payload: { scope: 'subject' },
    });
    expect(anonymous.statusCode).toBe(401);
  });
});
