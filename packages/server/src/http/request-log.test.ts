import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.js';
import { createTestApp, type TestApp } from '../test/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('request log (PIPL)', () => {
  it('names the path of a request, never its query string with patient names', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const app = await buildApp(t.ctx, { logger: { level: 'info', stream } });
    try {
      const { token } = await t.login();
      await app.inject({
        method: 'GET',
        url: `/api/v1/business/subjectRecord/list?studyId=1&subjectName=${encodeURIComponent('张三')}&identificationCode=LSS-0001`,
        headers: { authorization: `Bearer ${token}` },
      });
    } finally {
      await app.close();
    }
    const log = lines.join('');
    expect(log).toContain('"url":"/api/v1/business/subjectRecord/list"');
    expect(log).not.toMatch(/subjectName|张三|%E5%BC%A0|LSS-0001/);
  });
});
