import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  buttonKey,
  MESSAGE_MSG,
  messageListQuerySchema,
  messageOptBodySchema,
  messageReportQuerySchema,
  messageRulesBodySchema,
  rowIdTextSchema,
  studyIdQuerySchema,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { pageRequest } from '../../http/paging.js';
import { requireStudy } from '../../http/study-guard.js';
import { fromBody, fromQuery } from '../../http/study-params.js';
import type { App } from '../../http/types.js';
import { patientOfToken } from '../patient-portal/patient-binding.service.js';
import { PATIENT_TOKEN_HEADER } from '../patient-portal/patient-portal.routes.js';
import { patientActor } from '../patient-portal/patient-portal.service.js';
import * as read from './messaging-read.service.js';
import * as rules from './messaging-rules.service.js';
import { runMessageSendJob, MESSAGE_SEND_JOB_KIND } from './messaging-send.job.js';

const tags = ['患者提醒'];
const module = '患者提醒';
const studyPermission = buttonKey('business.messages');
const BASE = '/api/business/messages';
const PATIENT = '/api/ignore/patient/messages';

const optStateQuerySchema = studyIdQuerySchema.extend({ subjectId: rowIdTextSchema });
const patientOptBodySchema = z.object({ reason: z.string().trim().max(500).optional() });

const patientOf = (ctx: AppContext, request: FastifyRequest) => {
  const header = request.headers[PATIENT_TOKEN_HEADER];
  return patientOfToken(ctx, typeof header === 'string' ? header : undefined);
};

/**
 * 患者提醒 (issue 38): a study's rules (GET any member, PUT 患者提醒), the record of messages and its report, the
 * development outbox, staff opt-out/opt-in, and the patient's own 退订. Recording what is due is the hourly task
 * `messages.schedule`; sending is the job `message-send` (and the minute task `messages.send`): no request sends.
 */
export function messagingRoutes(app: App, ctx: AppContext) {
  ctx.jobs.handle(MESSAGE_SEND_JOB_KIND, (_job, tools) => runMessageSendJob(ctx, tools.signal));

  app.get(
    `${BASE}/rules`,
    { schema: { tags, summary: '患者提醒规则', querystring: studyIdQuerySchema }, config: { study: fromQuery } },
    async (request) => ok(await rules.getRules(ctx, requireStudy(request))),
  );
  app.put(
    `${BASE}/rules`,
    {
      schema: { tags, summary: '保存患者提醒规则', body: messageRulesBodySchema },
      config: { study: fromBody, studyPermission, module, action: '修改提醒规则' },
    },
    async (request) => {
      const { studyId: _studyId, ...next } = request.body;
      return ok(await rules.saveRules(ctx, requireUser(request), requireStudy(request), next), MESSAGE_MSG.saved);
    },
  );
  app.get(
    BASE,
    {
      schema: { tags, summary: '患者消息记录', querystring: messageListQuerySchema },
      config: { study: fromQuery, studyPermission },
    },
    async (request) =>
      ok(await read.listMessages(ctx, requireStudy(request), request.query, pageRequest(request.query))),
  );
  app.get(
    `${BASE}/report`,
    {
      schema: { tags, summary: '发送统计', querystring: messageReportQuerySchema },
      config: { study: fromQuery, studyPermission },
    },
    async (request) => ok(await read.messageReport(ctx, requireStudy(request), request.query.deptId)),
  );
  app.get(
    `${BASE}/outbox`,
    {
      schema: { tags, summary: '开发发件箱（仅开发通道）', querystring: messageListQuerySchema },
      config: { study: fromQuery, studyPermission },
    },
    async (request) => ok(await read.outbox(ctx, requireStudy(request), pageRequest(request.query))),
  );
  app.get(
    `${BASE}/opt-out`,
    {
      schema: { tags, summary: '患者是否退订', querystring: optStateQuerySchema },
      config: { study: fromQuery, studyPermission },
    },
    async (request) => ok(await rules.staffOptState(ctx, requireStudy(request), request.query.subjectId)),
  );
  app.post(
    `${BASE}/opt-out`,
    {
      schema: { tags, summary: '为患者退订提醒', body: messageOptBodySchema },
      config: { study: fromBody, studyPermission, module, action: '退订提醒' },
    },
    async (request) =>
      ok(
        await rules.staffOptOut(
          ctx,
          requireUser(request),
          requireStudy(request),
          request.body.subjectId,
          request.body.reason,
        ),
        MESSAGE_MSG.optedOut,
      ),
  );
  app.post(
    `${BASE}/opt-in`,
    {
      schema: { tags, summary: '恢复患者提醒', body: messageOptBodySchema },
      config: { study: fromBody, studyPermission, module, action: '恢复提醒' },
    },
    async (request) =>
      ok(
        await rules.staffOptIn(
          ctx,
          requireUser(request),
          requireStudy(request),
          request.body.subjectId,
          request.body.reason,
        ),
        MESSAGE_MSG.optedIn,
      ),
  );

  // The patient (X-Patient-Token): whether they opted out, and 退订 (idempotent; audited as the patient).
  app.get(`${PATIENT}/opt-out`, { schema: { tags, summary: '我的提醒退订状态' } }, async (request) => {
    const patient = await patientOf(ctx, request);
    return ok(await rules.optState(ctx.db, patient.studyId, patient.subjectId));
  });
  app.post(
    `${PATIENT}/opt-out`,
    {
      schema: { tags, summary: '退订提醒（患者）', body: patientOptBodySchema },
      config: { module, action: '患者退订提醒' },
    },
    async (request) => {
      const patient = await patientOf(ctx, request);
      const state = await rules.optOut(
        ctx,
        patientActor(patient.identificationCode),
        patient.studyId,
        { id: patient.subjectId, code: patient.identificationCode },
        'patient',
        request.body.reason?.trim() || null,
      );
      return ok(state, MESSAGE_MSG.optedOut);
    },
  );
}
