import { noticeAdminRowSchema, noticeSavedSchema } from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contractData, pageOf } from '../../test/contract.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/** 通知公告管理's answers, as the routes give them, against core's contract (notice-contract.ts). */

let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await createTestApp();
  admin = (await t.login()).token;
});
afterAll(() => t.close());

describe('the administrators’ notices answer as core describes them', () => {
  it('writing, changing, listing and removing a notice', async () => {
    const body = { title: '系统维护', content: '今晚十点', targetType: 'role', targetRoleId: 1 };
    const { noticeId } = contractData(noticeSavedSchema, await t.call(admin, 'POST', '/api/system/notice', body));
    const url = `/api/system/notice/${noticeId}`;
    contractData(noticeSavedSchema, await t.call(admin, 'PUT', url, { ...body, title: '系统维护通知' }));
    const list = contractData(
      pageOf(noticeAdminRowSchema),
      await t.call(admin, 'GET', '/api/system/notice/manage/list?pageNum=1&pageSize=10'),
    );
    expect(list.list[0]!.targetName).not.toBeNull();
    expect(contractData(z.null(), await t.call(admin, 'DELETE', url))).toBeNull();
  });
});
