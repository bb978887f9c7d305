import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { multipart } from '../test/multipart.js';
import { listenOnLoopback, rawSend, requestBytes } from '../test/raw-http.js';
import { createTestApp, type TestApp } from '../test/test-app.js';
import { seedDemoStudy } from '../db/demo-study.js';
import { addStudyMember } from '../test/study-member.js';
import { REQUEST_TIMEOUT_MSG, serverTimeoutOptions } from './request-timeouts.js';
import { MAX_UPLOADS_PER_USER, UPLOADS_BUSY_MSG } from './upload-slots.js';

/**
 * Slow-loris: a client that sends its request slowly, or stops, is cut off, so it holds no socket or handler for
 * long. Small timeouts here; the defaults and their reasons are in docs/deployment.md. Every wait is on the
 * connection closing, never on a fixed sleep.
 */
const timeouts = { headersMs: 800, requestMs: 400, uploadMs: 2_500, idleMs: 1_500 };

let t: TestApp;
let port: number;
let admin: string;
let studyId: number;

beforeAll(async () => {
  t = await createTestApp({ config: { httpTimeouts: timeouts, dataDir: `/tmp/edc-timeouts-test-${process.pid}` } });
  await seedDemoStudy(t.db);
  admin = (await t.login()).token;
  studyId = (await t.call(admin, 'GET', '/api/business/study/list')).body.data.list[0].id as number;
  port = await listenOnLoopback(t.app);
});
afterAll(() => t?.close());

/** The next call over the network is answered: the server lives and serves. */
async function serves() {
  const res = await fetch(`http://127.0.0.1:${port}/api/business/study/list`, {
    headers: { authorization: `Bearer ${admin}` },
  });
  expect(res.status).toBe(200);
}

/** An upload's head and the first bytes of its file; the Content-Length promises far more. */
function uploadStart(token = admin) {
  const form = multipart({}, [{ fileName: 'video.mp4', data: Buffer.alloc(64, 1) }]);
  const head = form.payload.subarray(0, form.payload.length - 40);
  return requestBytes(
    'POST',
    `/api/common/file/upload?studyId=${studyId}`,
    { authorization: `Bearer ${token}`, ...form.headers },
    head,
    1_000_000,
  );
}

describe('HTTP timeouts (slow or stalled clients)', () => {
  it('are read from the configuration, with defaults for every server', () => {
    const defaults = loadConfig({}).httpTimeouts;
    expect(defaults).toEqual({ headersMs: 30_000, requestMs: 60_000, uploadMs: 1_800_000, idleMs: 300_000 });
    expect(
      loadConfig({
        HTTP_HEADERS_TIMEOUT: '10',
        HTTP_REQUEST_TIMEOUT: '20',
        HTTP_UPLOAD_TIMEOUT: '600',
        HTTP_IDLE_TIMEOUT: '90',
      }).httpTimeouts,
    ).toEqual({ headersMs: 10_000, requestMs: 20_000, uploadMs: 600_000, idleMs: 90_000 });
    expect(() => loadConfig({ HTTP_REQUEST_TIMEOUT: '0' })).toThrow(/HTTP_REQUEST_TIMEOUT/);
    expect(() => loadConfig({ HTTP_IDLE_TIMEOUT: 'never' })).toThrow(/HTTP_IDLE_TIMEOUT/);
    expect(() => loadConfig({ HTTP_REQUEST_TIMEOUT: '120', HTTP_UPLOAD_TIMEOUT: '60' })).toThrow(/HTTP_UPLOAD_TIMEOUT/);
    // Node's own checks: none of them is left off, as Fastify leaves requestTimeout and connectionTimeout.
    const options = serverTimeoutOptions(defaults);
    expect(options).toMatchObject({ connectionTimeout: 300_000, requestTimeout: 1_830_000 });
    expect(options.http).toMatchObject({ headersTimeout: 30_000, connectionsCheckingInterval: 7_500 });
    expect(t.app.server).toMatchObject({
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.headersMs + timeouts.uploadMs,
      timeout: timeouts.idleMs,
    });
  });

  it('a body trickled in is cut at the request timeout with 408 请求超时, an upload later at its own', async () => {
    const json = rawSend(
      port,
      requestBytes(
        'POST',
        '/api/business/subject',
        { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        Buffer.from('{"studyId":'),
        100_000,
      ),
      'trickle',
    );
    const upload = rawSend(port, uploadStart(), 'trickle');
    const cut = await json.done;
    expect(cut.status).toBe(408);
    expect(JSON.parse(cut.body)).toEqual({ code: 408, msg: REQUEST_TIMEOUT_MSG, data: null });
    // The upload, started at the same moment and trickling as well, is still being received.
    expect(upload.closed()).toBe(false);
    const uploadCut = await upload.done;
    expect(uploadCut.status).toBe(408);
    expect(JSON.parse(uploadCut.body).msg).toBe(REQUEST_TIMEOUT_MSG);
    await serves();
  });

  it('a connection on which nothing more arrives is closed at the idle timeout', async () => {
    // The upload's own limit is longer than the idle one: only idleness can close it first, and it answers nothing.
    const silent = rawSend(port, uploadStart(), 'stay');
    const closed = await silent.done;
    expect(closed).toMatchObject({ status: null, text: '' });
    await serves();
  });

  it('headers that never end are answered 408 at the headers timeout', async () => {
    const slow = rawSend(port, Buffer.from('GET /api/business/study/list HTTP/1.1\r\nhost: x\r\nx-slow: '), 'trickle');
    const cut = await slow.done;
    expect(cut.status).toBe(408);
    expect(JSON.parse(cut.body)).toEqual({ code: 408, msg: REQUEST_TIMEOUT_MSG, data: null });
    await serves();
  });

  it('a body cut short by the client closing its side is answered 400 请求内容格式不正确', async () => {
    const cut = await rawSend(
      port,
      requestBytes(
        'POST',
        '/api/business/subject',
        { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        Buffer.from('{"studyId":'),
        100,
      ),
      'end',
    ).done;
    expect(cut.status).toBe(400);
    expect(JSON.parse(cut.body)).toEqual({ code: 400, msg: '请求内容格式不正确', data: null });
    await serves();
  });

  it('a user has at most 16 uploads arriving at once: the next is 429 and closed, another member is not held up, a slot ends with its upload', async () => {
    const held = Array.from({ length: MAX_UPLOADS_PER_USER }, () => rawSend(port, uploadStart(), 'trickle'));
    // Each upload takes its slot as its handler starts; the 17th is refused once all 16 are in.
    let refused = await rawSend(port, uploadStart(), 'trickle').done;
    for (let i = 0; refused.status !== 429 && i < 50; i++) refused = await rawSend(port, uploadStart(), 'trickle').done;
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toEqual({ code: 429, msg: UPLOADS_BUSY_MSG, data: null });
    const other = await addStudyMember(t, admin, studyId, '13600000071', { permissions: [] });
    // Another member's upload is taken: it runs until the upload timeout cuts it (408), never 429.
    expect((await rawSend(port, uploadStart(other), 'trickle').done).status).toBe(408);
    // Each held upload ends (here at the upload timeout) and gives its slot back: the user uploads again.
    expect((await Promise.all(held.map((c) => c.done))).map((r) => r.status)).toEqual(held.map(() => 408));
    expect((await rawSend(port, uploadStart(), 'trickle').done).status).toBe(408);
    await serves();
    // Each attempt that finds a slot still free runs to the 2.5 s upload timeout: on a loaded machine the 16 slots
    // fill slowly, and several such waits in a row pass the default 30 s.
  }, 120_000);
});
