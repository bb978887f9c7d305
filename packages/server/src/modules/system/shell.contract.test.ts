import { myNoticePageSchema, noticeUnreadSchema, sysConfigFieldSchema } from '@ecrf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { contractData } from '../../test/contract.js';
import { createTestApp, type TestApp } from '../../test/test-app.js';

/** What the shell reads for every user, as the routes give it, against core's contract (shell-contract.ts). */

let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await createTestApp();
  admin = (await t.login()).token;
  const posted = await t.call(admin, 'POST', '/api/system/notice', { title: '系统维护', content: '今晚十点' });
  expect(posted.status, JSON.stringify(posted.body)).toBe(200);
});
afterAll(() => t.close());

describe('the shell’s reads answer as core describes them', () => {
  it('the caller’s notices, marking them read, and the system title', async () => {
    const page = contractData(
      myNoticePageSchema,
      await t.call(admin, 'GET', '/api/system/notice/list?pageNum=1&pageSize=10'),
    );
    expect(page.list[0]!.read).toBe(false);
    expect(contractData(noticeUnreadSchema, await t.call(admin, 'PUT', '/api/system/notice/read', {})).unread).toBe(0);
    contractData(
      z.array(sysConfigFieldSchema),
      await t.call(admin, 'GET', '/api/v1/base/sysconfig/getbasesysconfiglist?key=systemtitle'),
    );
  });
});
