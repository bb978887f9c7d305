import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/test-app.js';

describe('unexpected failures', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close().catch(() => undefined));

  it('answer 500 系统异常 with a request id and no internals when the database fails', async () => {
    const { token } = await t.login();
    // Break the database under a running app: every query now throws.
    const db = t.db as unknown as { execute: unknown; select: unknown };
    const original = db.select;
    db.select = () => {
      throw new Error('relation "secret_internal_table" does not exist');
    };
    try {
      const res = await t.call(token, 'GET', '/api/system/users');
      expect(res.status).toBe(500);
      expect(res.body.code).toBe(500);
      expect(res.body.msg).toBe('系统异常');
      expect(res.body.data.requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(JSON.stringify(res.body)).not.toContain('secret_internal_table');
    } finally {
      db.select = original;
    }
  });

  it('answers 400 for a body that is not JSON', async () => {
    const { token } = await t.login();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/system/dept',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 400, msg: '请求参数错误' });
  });

  it('answers 400 or 409, not 500, when PostgreSQL refuses an input a schema let through (backstop)', async () => {
    const { token } = await t.login();
    const db = t.db as unknown as { select: unknown };
    const original = db.select;
    const cases: Array<[string, number]> = [
      ['22003', 400],
      ['22P02', 400],
      ['22021', 400],
      ['23505', 409],
    ];
    try {
      for (const [code, status] of cases) {
        db.select = () => {
          // drizzle wraps the driver's error; the SQLSTATE sits on the cause.
          throw Object.assign(new Error('Failed query: select …'), {
            cause: Object.assign(new Error('value out of range'), { code }),
          });
        };
        const res = await t.call(token, 'GET', '/api/system/users');
        expect(res.status, code).toBe(status);
        expect(res.body.code).toBe(status);
        expect(JSON.stringify(res.body)).not.toContain('Failed query');
      }
    } finally {
      db.select = original;
    }
  });
});
