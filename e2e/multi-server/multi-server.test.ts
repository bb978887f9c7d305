import crypto from 'node:crypto';
import { io as connectClient, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STUDY_JOIN } from '@ecrf/core';
import {
  ADMIN,
  INITIAL_PASSWORD,
  POSTGRES_URL,
  REDIS_URL,
  answers,
  startCluster,
  until,
  type Cluster,
} from './cluster.js';

/**
 * Two app servers on one PostgreSQL and one Redis behind nginx (docs/deployment.md): shared state, realtime across
 * servers, and a 32-client save load through nginx during which one server is killed (SIGKILL). No acknowledged save
 * may be lost: every save that got a success answer is in the database with its value afterwards.
 */

const CLIENTS = 32;
const SAVES_PER_CLIENT = 10;
/** Acknowledged saves before server 1 is killed: the load is well under way and far from done. */
const KILL_AFTER = CLIENTS * 3;

const ready = (await answers(POSTGRES_URL)) && (await answers(REDIS_URL));

interface Envelope<T = any> {
  code: number;
  msg: string;
  data: T;
}

describe.skipIf(!ready)('two app servers behind nginx', () => {
  let cluster: Cluster;
  let token: string;
  let studyId: number;
  let crfId: number;

  async function call<T = any>(method: string, url: string, body?: unknown, base = cluster.baseUrl) {
    const res = await fetch(base + url, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, upstream: res.headers.get('x-upstream'), body: (await res.json()) as Envelope<T> };
  }

  /** A Socket.IO client of one hub, websocket transport only (no long-polling, so no sticky sessions needed). */
  function connected(url: string): Promise<Socket> {
    const socket = connectClient(url, {
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      auth: { token },
    });
    return new Promise((resolve, reject) => {
      socket.once('connect', () => resolve(socket));
      socket.once('connect_error', (err) => (socket.disconnect(), reject(err)));
    });
  }

  beforeAll(async () => {
    cluster = await startCluster();
    const login = async (password: string) => {
      const res = await fetch(`${cluster.baseUrl}/api/ignore/sys/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: ADMIN, password }),
      });
      expect(res.status, await res.clone().text()).toBe(200);
      return ((await res.json()) as Envelope<{ token: string }>).data.token;
    };
    token = await login(INITIAL_PASSWORD);
    const changed = await call('PUT', '/api/system/user/password', {
      oldPassword: INITIAL_PASSWORD,
      newPassword: 'Multi@2026',
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    token = await login('Multi@2026');
    studyId = (await call('GET', '/api/business/study/list')).body.data.list[0].id;
    const crfs = (await call<{ id: number; title: string }[]>('GET', `/api/system/crf/list?studyId=${studyId}`)).body
      .data;
    crfId = crfs.find((crf) => crf.title === '实验室检查')!.id;
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it('nginx spreads requests over both servers; each answers for the other (sessions and data are shared)', async () => {
    const seen = new Set<string>();
    await until('both upstreams to answer through nginx', async () => {
      const res = await call('GET', '/api/sys/login/getInfo');
      expect(res.status).toBe(200);
      seen.add(res.upstream!);
      return seen.size === 2;
    });
    for (const server of cluster.servers) {
      expect((await call('GET', '/api/sys/login/getInfo', undefined, server.url)).status).toBe(200);
    }
  });

  it('a user connected to server 1 receives the pushes of a save and a query raised on server 2', async () => {
    const [one, two] = cluster.servers;
    const enrolled = await call('POST', '/api/business/subject', {
      studyId,
      subjectName: '推送',
      gender: 1,
      diseaseCode: 'LSS',
    });
    expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
    const saved = await call('PUT', '/api/v3/business/crf', {
      subjectRecordId: enrolled.body.data.subjectRecordId,
      crfId,
      version: 0,
      values: { hb: 120 },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);

    // Websocket transport only, on server 1 itself (not through nginx) so the push must cross servers: the
    // administrator watches the study on eventhub and hears its counts on personsignalhub.
    const watching = await connected(`${one.url}/eventhub`);
    const personal = await connected(`${one.url}/personsignalhub`);
    try {
      const joined = await watching.timeout(10_000).emitWithAck(STUDY_JOIN, studyId);
      expect(joined).toEqual({ ok: true });
      const heard: string[] = [];
      watching.onAny((event: string) => heard.push(`eventhub ${event}`));
      personal.onAny((event: string) => heard.push(`personsignalhub ${event}`));
      /** The first `event` on `socket`; a push that never comes fails with what was heard instead. */
      const push = <T>(socket: Socket, event: string) =>
        new Promise<T>((resolve, reject) => {
          socket.once(event, resolve);
          setTimeout(
            () => reject(new Error(`no ${event} within 30 s; heard: ${heard.join(', ')}\n${cluster.output()}`)),
            30_000,
          ).unref();
        });
      const recordSaved = push<{ studyId: number; recordId: number }>(watching, 'record.saved');
      const counts = push<{ studyId: number; doubts: number }>(personal, 'counts');
      const resaved = await call(
        'PUT',
        '/api/v3/business/crf',
        {
          subjectRecordId: enrolled.body.data.subjectRecordId,
          crfId,
          crfDataRecordId: saved.body.data.crfDataRecordId,
          version: saved.body.data.version,
          values: { hb: 121 },
        },
        two.url,
      );
      expect(resaved.status, JSON.stringify(resaved.body)).toBe(200);
      expect(await recordSaved).toMatchObject({ studyId, recordId: saved.body.data.crfDataRecordId });
      const opened = await call(
        'POST',
        `/api/business/doubt/open?studyId=${studyId}`,
        { crfDataRecordId: saved.body.data.crfDataRecordId, itemName: 'hb', doubtDescription: '请核实' },
        two.url,
      );
      expect(opened.status, JSON.stringify(opened.body)).toBe(200);
      expect(await counts).toMatchObject({ studyId, doubts: expect.any(Number) });
    } finally {
      watching.disconnect();
      personal.disconnect();
    }

    // And through nginx: the Socket.IO handshake is upgraded to a websocket by the proxy.
    (await connected(`${cluster.baseUrl}/personsignalhub`)).disconnect();
  });

  it('32 clients save through nginx; server 1 is killed mid-load right after a job is enqueued through it: no acknowledged save is lost, the load finishes and the job completes on server 2', async () => {
    const [one, two] = cluster.servers;
    const subjects: number[] = [];
    for (let i = 0; i < CLIENTS; i++) {
      const res = await call('POST', '/api/business/subject', {
        studyId,
        subjectName: `负载${i}`,
        gender: i % 2,
        diseaseCode: 'LSS',
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      subjects.push(res.body.data.subjectRecordId);
    }

    interface Ack {
      client: number;
      value: number;
      requestId: string;
      crfDataRecordId: number;
      version: number;
      upstream: string;
      /** The answered attempt started after server 1 had died: only server 2 can have answered it. */
      afterKill: boolean;
    }
    const acks: Ack[] = [];
    let gone = false;
    let retries = 0;
    const deadline = Date.now() + 90_000;

    /** One save, retried with the same requestId until some server answers it: applied once, whoever answers. */
    async function save(client: number, body: Record<string, unknown>): Promise<Ack> {
      for (;;) {
        if (Date.now() > deadline) {
          throw new Error(`client ${client}: no server answered its save\n${cluster.output()}`);
        }
        const startedAfterKill = gone;
        try {
          const res = await call('PUT', '/api/v3/business/crf', body);
          if (res.status === 200) {
            return {
              client,
              value: (body.values as { hb: number }).hb,
              requestId: body.requestId as string,
              crfDataRecordId: res.body.data.crfDataRecordId,
              version: res.body.data.version,
              upstream: res.upstream!.split(', ').at(-1)!,
              afterKill: startedAfterKill,
            };
          }
          // Only a server that is gone may refuse: anything else is a real failure.
          expect([502, 503, 504], JSON.stringify(res.body)).toContain(res.status);
        } catch (err) {
          if (!(err instanceof TypeError)) throw err; // fetch's network failure
        }
        retries++;
        await new Promise((r) => setTimeout(r, 50)); // a client's back-off before trying again
      }
    }

    async function runClient(client: number) {
      let record: { crfDataRecordId?: number; version: number } = { version: 0 };
      for (let i = 1; i <= SAVES_PER_CLIENT; i++) {
        const ack = await save(client, {
          subjectRecordId: subjects[client],
          crfId,
          ...record,
          values: { hb: 100 + i },
          requestId: crypto.randomUUID(),
        });
        acks.push(ack);
        record = { crfDataRecordId: ack.crfDataRecordId, version: ack.version };
      }
    }

    const load = Promise.all(Array.from({ length: CLIENTS }, (_, client) => runClient(client)));
    await until('the load to be under way', () => acks.length >= KILL_AFTER, 90_000, cluster.output);
    // A job enqueued through server 1, which dies right after answering: server 2 runs it.
    const enqueued = await call('POST', '/api/system/jobs/test-run', { steps: 3, stepMs: 50 }, one.url);
    one.child.kill('SIGKILL');
    expect(enqueued.status, JSON.stringify(enqueued.body)).toBe(200);
    await one.exited;
    gone = true;
    await load;

    const upstreamOf = (server: { port: number }) => `127.0.0.1:${server.port}`;
    expect(acks).toHaveLength(CLIENTS * SAVES_PER_CLIENT);
    // Both servers took saves before the kill; only server 2 answered once server 1 was gone.
    const beforeKill = new Set(acks.filter((a) => !a.afterKill).map((a) => a.upstream));
    expect(beforeKill).toEqual(new Set([upstreamOf(one), upstreamOf(two)]));
    expect(new Set(acks.filter((a) => a.afterKill).map((a) => a.upstream))).toEqual(new Set([upstreamOf(two)]));
    expect(acks.filter((a) => a.afterKill).length).toBeGreaterThan(0);

    // Every acknowledged save is in the database: the record holds the last value, the audit trail every value,
    // and each request id was applied once.
    for (let client = 0; client < CLIENTS; client++) {
      const mine = acks.filter((a) => a.client === client);
      const last = mine.at(-1)!;
      const { rows: records } = await cluster.db.query(
        `select id, version, "values"->>'hb' as hb from crf_data_records
          where subject_record_id = $1 and crf_id = $2 and deleted_at is null`,
        [subjects[client], crfId],
      );
      expect(records, `client ${client}`).toEqual([
        { id: last.crfDataRecordId, version: last.version, hb: String(last.value) },
      ]);
      const { rows: audited } = await cluster.db.query(
        `select new_value from audit_events where crf_data_record_id = $1 and item_name = 'hb' order by id`,
        [last.crfDataRecordId],
      );
      expect(
        audited.map((r: { new_value: unknown }) => Number(r.new_value)),
        `client ${client}`,
      ).toEqual(mine.map((a) => a.value));
      const { rows: applied } = await cluster.db.query(
        `select request_id from applied_requests where request_id = any($1::varchar[])`,
        [mine.map((a) => a.requestId)],
      );
      expect(applied, `client ${client}`).toHaveLength(SAVES_PER_CLIENT);
    }
    const jobId = enqueued.body.data.jobId as string;
    let job: { state: string; attempts: number; progress: number } | undefined;
    await until(
      'the job enqueued through the killed server to finish on the other',
      async () => {
        const res = await call('GET', `/api/system/jobs/${jobId}`);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        job = res.body.data;
        expect(['queued', 'running', 'done']).toContain(job!.state);
        return job!.state === 'done';
      },
      // BullMQ takes a dead worker's job back once its lock has run out (up to 30 s after the kill) at the live
      // server's next stalled-job check (every 30 s): up to a minute, more when the loaded machine delays timers
      // (75 s was once not enough in CI).
      105_000,
      cluster.output,
    );
    expect(job).toMatchObject({ state: 'done', progress: 100 });

    console.log(
      `multi-server load: ${acks.length} saves acknowledged, ${acks.filter((a) => a.afterKill).length} after the kill, ${retries} client retries`,
    );
  }, 180_000);
});
