import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/test-app.js';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await createTestApp();
  token = (await t.login()).token;
});
afterAll(() => t.close());

describe('response bodies', () => {
  it('HTTP-17: every JSON answer is { code, msg, data } with code 200 or the HTTP status; lists answer { list, total }', async () => {
    const answers = [
      await t.call(token, 'GET', '/api/system/users'),
      await t.call(token, 'GET', '/api/system/dept/list'),
      await t.call(token, 'GET', '/api/system/user?userId=999999'),
      await t.call(token, 'POST', '/api/system/dept', { parentId: 1 }),
      await t.call('not-a-token', 'GET', '/api/system/users'),
      await t.call(token, 'GET', '/api/no/such/call'),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 404, 400, 401, 404]);
    for (const answer of answers) {
      expect(Object.keys(answer.body).sort()).toEqual(['code', 'data', 'msg']);
      expect(answer.body.code).toBe(answer.status);
      expect(typeof answer.body.msg).toBe('string');
    }
    expect(Object.keys(answers[0]!.body.data).sort()).toEqual(['list', 'total']);
    expect(Array.isArray(answers[1]!.body.data)).toBe(true);
  });
});
