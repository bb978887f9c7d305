import { consultQuestionInput } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { ok } from '../../http/envelope.js';
import type { App } from '../../http/types.js';
import { PATIENT_TOKEN_HEADER } from '../patient-portal/patient-portal.routes.js';
import { patientOfToken } from '../patient-portal/patient-binding.service.js';
import { askAsPatient, listForPatient } from './advisory.service.js';

const tags = ['患者端'];

/**
 * 在线咨询 on the patient side (public prefix; the patient session's `X-Patient-Token` names the patient, who asks
 * and reads only their own questions):
 * GET  /api/ignore/patient/consult                      my questions with their answers, newest first
 * POST /api/ignore/patient/consult {title, question}    ask
 */
export function advisoryPatientRoutes(app: App, ctx: AppContext) {
  const patientOf = (header: string | string[] | undefined) =>
    patientOfToken(ctx, typeof header === 'string' ? header : undefined);

  app.get('/api/ignore/patient/consult', { schema: { tags, summary: '我的咨询' } }, async (request) => {
    const patient = await patientOf(request.headers[PATIENT_TOKEN_HEADER]);
    return ok(await listForPatient(ctx, patient));
  });

  app.post(
    '/api/ignore/patient/consult',
    { schema: { tags, summary: '提交咨询', body: consultQuestionInput } },
    async (request) => {
      const patient = await patientOf(request.headers[PATIENT_TOKEN_HEADER]);
      return ok(await askAsPatient(ctx, patient, request.body), '提交成功');
    },
  );
}
