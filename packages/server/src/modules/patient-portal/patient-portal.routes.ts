import type { FastifyRequest } from 'fastify';
import {
  diseaseNoteBodySchema,
  patientBindBodySchema,
  patientFormParamsSchema,
  patientFormSaveBodySchema,
  portalSettingsBodySchema,
  wechatSubjectBodySchema,
  wxUserQuerySchema,
} from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { requireUser } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { pageRequest } from '../../http/paging.js';
import { requireStudy } from '../../http/study-guard.js';
import type { App } from '../../http/types.js';
import { fromBody, fromQuery, studyIdQuery } from '../../http/study-params.js';
import * as binding from './patient-binding.service.js';
import * as forms from './patient-forms.service.js';
import * as portal from './patient-portal.service.js';

const tags = ['患者端'];
const module = '患者端';
const STAFF = '/api/business/wechat';
const PATIENT = '/api/ignore/patient';
/** The patient's session token travels in its own header: never confused with a staff bearer token. */
export const PATIENT_TOKEN_HEADER = 'x-patient-token';

const patientOf = (ctx: AppContext, request: FastifyRequest) => {
  const header = request.headers[PATIENT_TOKEN_HEADER];
  return binding.patientOfToken(ctx, typeof header === 'string' ? header : undefined);
};

/**
 * The patient side (docs/patient-portal.md).
 *
 * Staff (signed in, staff of the study):
 * GET  /api/business/wechat/settings?studyId            binding settings and patient-reported CRFs
 * PUT  /api/business/wechat/settings                    (study:config)
 * GET  /api/business/wechat/users?studyId&bound&keyword patients and their binding, paged
 * POST /api/business/wechat/bind-code {studyId, subjectId}  a one-time code (编辑患者)
 * POST /api/business/wechat/unbind    {studyId, subjectId}  (编辑患者)
 * GET  /api/business/wechat/disease?studyId             disease education per study disease
 * PUT  /api/business/wechat/disease                     (study:config)
 *
 * Patients (public prefix, `X-Patient-Token`):
 * POST /api/ignore/patient/bind              {studyId, code} → {token, expiresAt, studyName}
 *      (no route tells a study's name or state by its id alone: only a live code of the study does)
 * GET  /api/ignore/patient/home, /forms, /forms/{crfId}; POST /forms/{crfId}; POST /logout
 *
 * Requests and answers are core's contract: wechat-contract.ts (staff), patient-portal-contract.ts (patients).
 */
export function patientPortalRoutes(app: App, ctx: AppContext) {
  app.get(
    `${STAFF}/settings`,
    { schema: { tags, summary: '患者端设置', querystring: studyIdQuery }, config: { study: fromQuery } },
    async (request) => ok(await portal.getSettings(ctx, requireStudy(request))),
  );

  app.put(
    `${STAFF}/settings`,
    {
      schema: {
        tags,
        summary: '保存患者端设置',
        body: portalSettingsBodySchema,
      },
      config: { study: fromBody, permission: 'study:config', module, action: '患者端设置' },
    },
    async (request) =>
      ok(await portal.saveSettings(ctx, requireUser(request), requireStudy(request), request.body), '保存成功'),
  );

  app.get(
    `${STAFF}/users`,
    {
      schema: {
        tags,
        summary: '微信用户（患者绑定）',
        querystring: wxUserQuerySchema,
      },
      config: { study: fromQuery },
    },
    async (request) => {
      const q = request.query;
      return ok(
        await portal.listPatients(
          ctx,
          requireStudy(request),
          { bound: q.bound === undefined ? undefined : q.bound === 'true', keyword: q.keyword || undefined },
          pageRequest(q),
        ),
      );
    },
  );

  app.post(
    `${STAFF}/bind-code`,
    {
      schema: { tags, summary: '发放绑定码', body: wechatSubjectBodySchema },
      config: { study: fromBody, studyPermission: 'btn:business.subject.edit', module, action: '发放绑定码' },
    },
    async (request) =>
      ok(await binding.issueBindCode(ctx, requireUser(request), requireStudy(request), request.body.subjectId)),
  );

  app.post(
    `${STAFF}/unbind`,
    {
      schema: { tags, summary: '解除绑定', body: wechatSubjectBodySchema },
      config: { study: fromBody, studyPermission: 'btn:business.subject.edit', module, action: '解除绑定' },
    },
    async (request) => {
      await binding.unbind(ctx, requireUser(request), requireStudy(request), request.body.subjectId);
      return ok(null, '解绑成功');
    },
  );

  app.get(
    `${STAFF}/disease`,
    { schema: { tags, summary: '病种宣教', querystring: studyIdQuery }, config: { study: fromQuery } },
    async (request) => ok(await portal.listDiseaseNotes(ctx, requireStudy(request))),
  );

  app.put(
    `${STAFF}/disease`,
    {
      schema: {
        tags,
        summary: '保存病种宣教',
        body: diseaseNoteBodySchema,
      },
      config: { study: fromBody, permission: 'study:config', module, action: '病种宣教' },
    },
    async (request) =>
      ok(await portal.saveDiseaseNote(ctx, requireUser(request), requireStudy(request), request.body), '保存成功'),
  );

  // ----- patients -----

  app.post(
    `${PATIENT}/bind`,
    {
      schema: {
        tags,
        summary: '患者绑定',
        body: patientBindBodySchema,
      },
      config: { module, action: '患者绑定' },
    },
    async (request) => ok(await binding.bind(ctx, request.body, request.ip), '绑定成功'),
  );

  app.get(`${PATIENT}/home`, { schema: { tags, summary: '患者首页' } }, async (request) =>
    ok(await forms.patientHome(ctx, await patientOf(ctx, request))),
  );

  app.get(`${PATIENT}/forms`, { schema: { tags, summary: '我的表单' } }, async (request) =>
    ok(await forms.patientForms(ctx, await patientOf(ctx, request))),
  );

  app.get(
    `${PATIENT}/forms/:crfId`,
    { schema: { tags, summary: '填写表单', params: patientFormParamsSchema } },
    async (request) => ok(await forms.patientForm(ctx, await patientOf(ctx, request), request.params.crfId)),
  );

  app.post(
    `${PATIENT}/forms/:crfId`,
    {
      schema: {
        tags,
        summary: '保存/提交表单（患者）',
        params: patientFormParamsSchema,
        body: patientFormSaveBodySchema,
      },
      config: { module, action: '患者填写' },
    },
    async (request) => {
      const patient = await patientOf(ctx, request);
      const saved = await forms.savePatientForm(ctx, patient, request.params.crfId, request.body);
      return ok(saved, request.body.submit ? '提交成功' : '保存成功');
    },
  );

  app.post(`${PATIENT}/logout`, { schema: { tags, summary: '退出' } }, async (request) => {
    await binding.logout(ctx, await patientOf(ctx, request));
    return ok(null);
  });
}
