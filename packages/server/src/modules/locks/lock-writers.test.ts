import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { STUDY_FROZEN_MSG } from '@ecrf/core';
import { createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../test/test-app.js';
import { openTwoSiteStudy, type TwoSiteStudy } from '../../test/two-sites.js';
import {
  fingerprint,
  fixture,
  fixtureCount,
  http,
  importRows,
  patientCall,
  redcapImport,
  useLockEnv,
  version,
  vitals,
  type Fixture,
  type Outcome,
} from './lock-test-kit.js';

/**
 * The lock × writer matrix (docs/multi-centre.md, locks): for each scope — the form record, the casebook, the
 * patient's site, the whole study, a finished study — every writer of patient data is refused with the lock named
 * and writes nothing (the study's rows compared before and after); reads go on; once lifted, the same writes pass.
 */

let t: TestApp;
let s: TwoSiteStudy;
let apiToken: string;

/**
 * What a lock covers: `record` writers change the locked form record (every scope refuses them), `patient` writers
 * change the patient (all but a form lock), `site` writers act at the site without an existing patient (a new
 * patient, a deleted casebook restored: a site, study or freeze refuses them).
 */
type Reach = 'record' | 'patient' | 'site';

interface Writer {
  name: string;
  reach: Reach;
  /** 423 for the API; the data import answers 200 with the refused rows; the REDCap API answers 400 REDCap-style. */
  refusedStatus?: number;
  run: (f: Fixture, attempt: number) => Promise<Outcome>;
}

const vitalsSave = (f: Fixture, hr: number, submit = false) =>
  version(f.recordId).then((v) =>
    http(s.admin, 'PUT', '/api/v3/business/crf', {
      subjectRecordId: f.subjectRecordId,
      crfId: vitals(),
      crfDataRecordId: f.recordId,
      version: v,
      values: { sbp: '130', dbp: '80', hr: String(hr) },
      submit,
    }),
  );

/** In the order they run once unlocked: the deletions last. */
const WRITERS: Writer[] = [
  { name: 'form save', reach: 'record', run: (f) => vitalsSave(f, 71) },
  {
    name: 'SDV',
    reach: 'record',
    run: (f) => http(s.admin, 'PUT', '/api/business/crf/sdv', { crfDataRecordId: f.recordId, verified: true }),
  },
  {
    name: 'new query',
    reach: 'record',
    run: (f) =>
      http(s.admin, 'POST', '/api/business/doubt/open', {
        crfDataRecordId: f.recordId,
        itemName: 'sbp',
        doubtDescription: '请核实收缩压',
      }),
  },
  {
    name: 'query reply',
    reach: 'record',
    run: (f) => http(s.admin, 'PUT', '/api/business/doubt/reply', { doubtId: f.replyDoubt, content: '已核实' }),
  },
  {
    name: 'query close',
    reach: 'record',
    run: (f) => http(s.admin, 'PUT', '/api/business/doubt/close', { doubtId: f.closeDoubt, content: '无误' }),
  },
  {
    name: 'field comment',
    reach: 'record',
    run: (f) =>
      http(s.admin, 'POST', '/api/business/crf/comment', {
        studyId: s.studyId,
        crfDataRecordId: f.recordId,
        itemName: 'sbp',
        content: '来源：门诊病历',
      }),
  },
  { name: 'data import', reach: 'record', refusedStatus: 200, run: (f) => importRows(f, 72) },
  { name: 'REDCap API import', reach: 'record', refusedStatus: 400, run: (f) => redcapImport(f, '73') },
  {
    name: 'patient-reported form',
    reach: 'record',
    run: async (f) =>
      patientCall(f.portalToken, 'POST', `/api/ignore/patient/forms/${vitals()}`, {
        values: { sbp: '130', dbp: '80', hr: '74' },
        submit: false,
        crfDataRecordId: f.recordId,
        version: await version(f.recordId),
      }),
  },
  {
    name: 'patient edit',
    reach: 'patient',
    run: (f, n) => http(s.admin, 'PUT', '/api/business/subject', { id: f.subjectId, subjectName: `改名${n}` }),
  },
  {
    name: 'patient state',
    reach: 'patient',
    run: (f) =>
      http(s.admin, 'PUT', '/api/business/subjectRecord/state', { subjectRecordId: f.subjectRecordId, state: 1 }),
  },
  {
    name: 'signature',
    reach: 'patient',
    run: (f) =>
      http(s.admin, 'PUT', '/api/v1/business/subject/sign', {
        subjectRecordId: f.subjectRecordId,
        password: TEST_ADMIN_PASSWORD,
      }),
  },
  {
    name: 'randomization',
    reach: 'patient',
    run: (f) =>
      http(s.admin, 'POST', '/api/business/randomization/subject', { studyId: s.studyId, subjectId: f.subjectId }),
  },
  {
    name: 'follow-up visit added',
    reach: 'patient',
    run: (f) =>
      http(s.admin, 'PUT', '/api/business/subject/follow/custom', {
        subjectRecordId: f.subjectRecordId,
        visitName: '加访',
        plannedDate: '2026-12-20',
        crfIds: [s.crfIds['术后随访']],
      }),
  },
  {
    name: 'follow-up date change',
    reach: 'patient',
    run: (f) =>
      http(s.admin, 'PUT', '/api/business/subject/follow/record', {
        followRecordId: f.visitId,
        plannedDate: '2026-12-15',
        reason: '患者要求改期',
      }),
  },
  {
    name: 'follow-up visit deleted',
    reach: 'patient',
    run: (f) =>
      http(
        s.admin,
        'DELETE',
        `/api/business/subject/follow/record?followRecordId=${f.visitId}&reason=${encodeURIComponent('重复')}`,
      ),
  },
  {
    name: 'medical record added',
    reach: 'patient',
    run: (f) =>
      http(s.admin, 'POST', '/api/v1/medical', {
        studyId: s.studyId,
        subjectId: f.subjectId,
        title: '出院小结',
        category: '出院小结',
      }),
  },
  {
    name: 'medical record edited',
    reach: 'patient',
    run: (f) =>
      http(s.admin, 'PUT', `/api/v1/medical/${f.medicalId}`, {
        studyId: s.studyId,
        subjectId: f.subjectId,
        title: '入院记录（补充）',
        category: '入院记录',
        reason: '补充记录',
      }),
  },
  {
    name: 'new patient at the site',
    reach: 'site',
    run: async (_f, n) =>
      http(s.admin, 'POST', '/api/business/subject', {
        studyId: s.studyId,
        subjectName: `新患者${fixtureCount()}-${n}`,
        gender: 0,
        birth: '1970-01-01',
        diseaseCode: 'LSS',
        deptId: s.siteA,
      }),
  },
  {
    name: 'casebook restored',
    reach: 'site',
    run: (f) =>
      http(s.admin, 'PUT', '/api/business/subjectRecord/restore', {
        subjectRecordId: f.deletedRecordId,
        reason: '误删恢复',
      }),
  },
  { name: 'form submit', reach: 'record', run: (f) => vitalsSave(f, 75, true) },
  {
    name: 'form record deleted',
    reach: 'record',
    run: (f) =>
      http(
        s.admin,
        'DELETE',
        `/api/business/crf/data?crfDataRecordId=${f.recordId}&reason=${encodeURIComponent('录错患者')}`,
      ),
  },
  {
    name: 'casebook deleted',
    reach: 'record',
    run: (f) =>
      http(
        s.admin,
        'DELETE',
        `/api/business/subjectRecord?subjectRecordId=${f.subjectRecordId}&reason=${encodeURIComponent('退出研究')}`,
      ),
  },
];

interface Scope {
  name: string;
  covers: (reach: Reach) => boolean;
  lock: (f: Fixture) => Promise<void>;
  unlock: (f: Fixture) => Promise<void>;
}

const lockCall = async (body: object) => {
  const res = await t.call(s.admin, 'PUT', '/api/business/lock', { studyId: s.studyId, reason: '核查完成', ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};
const setStatus = async (status: number) => {
  const res = await t.call(s.admin, 'PUT', '/api/business/study', { id: s.studyId, status, reason: '重新开启' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};

const SCOPES: Scope[] = [
  {
    name: 'a form lock (表单锁定)',
    covers: (reach) => reach === 'record',
    lock: (f) => lockCall({ scope: 'record', targetId: f.recordId, locked: true }),
    unlock: (f) => lockCall({ scope: 'record', targetId: f.recordId, locked: false }),
  },
  {
    name: 'a casebook lock (病例锁定)',
    covers: (reach) => reach !== 'site',
    lock: (f) => lockCall({ scope: 'subject', targetId: f.subjectRecordId, locked: true }),
    unlock: (f) => lockCall({ scope: 'subject', targetId: f.subjectRecordId, locked: false }),
  },
  {
    name: 'a site lock (中心锁定)',
    covers: () => true,
    lock: () => lockCall({ scope: 'site', targetId: s.siteA, locked: true }),
    unlock: () => lockCall({ scope: 'site', targetId: s.siteA, locked: false }),
  },
  {
    name: 'a study lock (数据库锁定)',
    covers: () => true,
    lock: () => lockCall({ scope: 'study', locked: true }),
    unlock: () => lockCall({ scope: 'study', locked: false }),
  },
  {
    name: 'a finished study (已结束)',
    covers: () => true,
    lock: () => setStatus(1),
    unlock: () => setStatus(0),
  },
];

/** What the refusal says: the live lock's words, or the freeze. */
async function refusalText() {
  const locks = (await t.call(s.admin, 'GET', `/api/business/lock?studyId=${s.studyId}`)).body.data as Array<{
    message: string;
  }>;
  return locks[0]?.message ?? STUDY_FROZEN_MSG;
}

beforeAll(async () => {
  t = await createTestApp({ config: { dataDir: `/tmp/edc-lock-writers-test-${process.pid}` } });
  s = await openTwoSiteStudy(t);
  useLockEnv({ t, s, apiToken: '' });
  const portal = await t.call(s.admin, 'PUT', '/api/business/wechat/settings', {
    studyId: s.studyId,
    bindEnabled: true,
    appId: '',
    welcome: '欢迎',
    proCrfIds: [vitals()],
  });
  expect(portal.status, JSON.stringify(portal.body)).toBe(200);
  const randomization = await t.call(s.admin, 'POST', '/api/business/randomization', {
    studyId: s.studyId,
    reason: '方案',
    config: {
      method: 'simple',
      arms: [
        { code: 'A', label: '试验组', ratio: 1 },
        { code: 'B', label: '对照组', ratio: 1 },
      ],
      blinded: true,
      factors: [],
    },
  });
  expect(randomization.status, JSON.stringify(randomization.body)).toBe(200);
  const token = await t.call(s.admin, 'POST', '/api/system/user/profile/apiToken', { studyId: s.studyId });
  expect(token.status, JSON.stringify(token.body)).toBe(200);
  apiToken = token.body.data.token;
  useLockEnv({ t, s, apiToken });
});
afterAll(() => t.close());

describe('locked data accepts no change through any writer', () => {
  for (const scope of SCOPES) {
    it(`${scope.name}: each writer it covers is refused naming the lock and writes nothing; reads go on; once lifted the writes pass`, async () => {
      const f = await fixture();
      await scope.lock(f);
      let locked = true;
      onTestFinished(async () => {
        // A failure while locked must not leave the next scope's patients locked.
        if (locked) await scope.unlock(f);
      });
      const text = await refusalText();
      const covered = WRITERS.filter((w) => scope.covers(w.reach));
      for (const writer of covered) {
        const before = await fingerprint();
        const out = await writer.run(f, 1);
        expect(out.ok, `${writer.name}: ${JSON.stringify(out)}`).toBe(false);
        expect(out.status, writer.name).toBe(writer.refusedStatus ?? 423);
        expect(out.msg, writer.name).toContain(text);
        expect(await fingerprint(), writer.name).toEqual(before);
      }
      // A form lock leaves the rest of the casebook open.
      if (!scope.covers('patient')) {
        const edit = WRITERS.find((w) => w.name === 'patient edit')!;
        expect((await edit.run(f, 0)).ok).toBe(true);
      }

      // Reads, exports and the trail still work.
      const detail = await t.call(s.admin, 'GET', `/api/v3/business/crf/${f.subjectRecordId}?crfId=${vitals()}`);
      expect(detail.status).toBe(200);
      expect(detail.body.data.crfDataRecord.values).toMatchObject({ hr: '70' });
      const trail = await t.call(
        s.admin,
        'GET',
        `/api/business/subjectRecord/operates?subjectRecordId=${f.subjectRecordId}`,
      );
      expect(trail.status).toBe(200);
      const csv = await t.app.inject({
        method: 'GET',
        url: `/api/business/audit/export?subjectRecordId=${f.subjectRecordId}`,
        headers: { authorization: `Bearer ${s.admin}` },
      });
      expect(csv.statusCode).toBe(200);
      const exported = await t.app.inject({
        method: 'POST',
        url: '/api/v3/business/search/export?wait=true',
        headers: { authorization: `Bearer ${s.admin}` },
        payload: { studyId: s.studyId, format: 'csvLong' },
      });
      expect(exported.statusCode, exported.body.slice(0, 200)).toBe(200);

      await scope.unlock(f);
      locked = false;
      for (const writer of covered) {
        const before = await fingerprint();
        const out = await writer.run(f, 2);
        expect(out.ok, `${writer.name} after unlocking: ${JSON.stringify(out)}`).toBe(true);
        // The fingerprint sees what each writer writes: its unchanged value above means nothing was written.
        expect(await fingerprint(), writer.name).not.toEqual(before);
      }
    });
  }
});
