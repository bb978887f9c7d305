import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { StudyPermissionKey } from '@ecrf/core';
import type { AppContext } from '../app-context.js';
import { cachedAtGeneration } from '../shared/auth-cache.js';
import { PATIENT_ID_KEYS } from '../shared/patient-site.js';
import { hasStudyPermission, seesSite, type StudyAccess } from '../shared/study-access.js';
import { studyAccessOf } from '../shared/study-access-of.js';
import { AppError } from './app-error.js';

export { canViewCrf, hasStudyPermission, seesSite, viewableCrfIds, type StudyAccess } from '../shared/study-access.js';

declare module 'fastify' {
  interface FastifyRequest {
    studyAccess: StudyAccess | null;
  }
  interface FastifyContextConfig {
    /**
     * Where this route names its study. When set, the caller must be staff of that study
     * (or hold study:manage); everyone else is refused, whatever id they try. `null` says the
     * request names no study at all (a route with an optional study): the handler decides.
     */
    study?: (request: FastifyRequest) => number | null | undefined | Promise<number | null | undefined>;
    /** The refusal text for non-members (the QR call says 您未参与该项目). */
    studyDeniedMsg?: string;
    /**
     * The study permission the route needs (a key of the caller's study role, e.g. `btn:business.subject.add`),
     * checked here once membership is known. Rules that depend on the record (which CRF it belongs to) stay
     * in the service.
     */
    studyPermission?: StudyPermissionKey;
    /**
     * Where this route names one patient: answers that patient's site (department), or undefined when there is
     * no such patient (the service answers its own 404). A caller scoped to other sites is answered 404 here, as
     * for a patient of another study. Lists filter by the caller's sites in their services.
     */
    site?: (request: FastifyRequest) => Promise<number | null | undefined>;
  }
}

/**
 * Every patient a request names must be at one of the caller's sites: the ids under the keys that always name a
 * patient's data (PATIENT_ID_KEYS), wherever the request carries them, and the one a route locates itself
 * (`config.site`, for an `id` that means a patient's thing). A route added later that takes a `subjectRecordId`
 * is scoped without a line of its own.
 */
async function checkPatientSites(ctx: AppContext, request: FastifyRequest, access: StudyAccess) {
  const checks: Array<Promise<number | null | undefined>> = [];
  for (const [key, value] of patientIdsOf(request)) checks.push(PATIENT_ID_KEYS[key]!(ctx.db, value));
  const locateSite = request.routeOptions.config.site;
  if (locateSite) checks.push(locateSite(request));
  for (const siteId of await Promise.all(checks)) {
    if (siteId !== undefined && !seesSite(access, siteId)) throw notInScope();
  }
}

function patientIdsOf(request: FastifyRequest): Array<[string, number]> {
  const found: Array<[string, number]> = [];
  for (const source of [request.params, request.query, request.body]) {
    if (!source || typeof source !== 'object' || Array.isArray(source)) continue;
    for (const [key, raw] of Object.entries(source as Record<string, unknown>)) {
      const singular = key.endsWith('Ids') ? key.slice(0, -1) : key;
      if (!Object.hasOwn(PATIENT_ID_KEYS, singular)) continue;
      // A multipart field arrives as { value }.
      const given = raw && typeof raw === 'object' && 'value' in raw ? (raw as { value: unknown }).value : raw;
      for (const one of Array.isArray(given) ? given : [given]) {
        const id = Number(one);
        if (Number.isSafeInteger(id) && id > 0) found.push([singular, id]);
      }
    }
  }
  return found;
}

/** A patient of another site is answered as one that does not exist. */
export const notInScope = () => AppError.notFound('subject.not_found', '患者不存在');

export function installStudyGuard(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('studyAccess', null);
  app.addHook('preHandler', async (request) => {
    const locate = request.routeOptions.config.study;
    const user = request.currentUser;
    if (!locate || !user) return;
    const studyId = await locate(request);
    if (studyId === null) return;
    const denied = () => AppError.forbidden('study.not_member', request.routeOptions.config.studyDeniedMsg);
    if (studyId === undefined || !Number.isInteger(studyId)) throw denied();
    const access =
      user.authGeneration === undefined
        ? await studyAccessOf(ctx, user.userId, user.permissions, studyId)
        : await cachedAtGeneration(ctx, user.authGeneration, `study:${user.userId}:${studyId}`, () =>
            studyAccessOf(ctx, user.userId, user.permissions, studyId),
          );
    if (!access) throw denied();
    const needed = request.routeOptions.config.studyPermission;
    if (needed && !hasStudyPermission(access, needed)) throw AppError.forbidden();
    if (access.siteIds !== null) await checkPatientSites(ctx, request, access);
    request.studyAccess = access;
  });
}

export function requireStudy(request: FastifyRequest): StudyAccess {
  if (!request.studyAccess) throw AppError.forbidden('study.not_member');
  return request.studyAccess;
}
