import fs from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyServerOptions } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { AppContext } from './app-context.js';
import { installAuth, requireAdministrator } from './http/auth.js';
import { installErrorHandler, notFoundBody } from './http/error-handler.js';
import { installInputBounds } from './http/input-bounds.js';
import { withRequestLogRules } from './http/request-log.js';
import { installRequestTimeouts, serverTimeoutOptions } from './http/request-timeouts.js';
import { installUploadSlots } from './http/upload-slots.js';
import { installSecurityHeaders } from './http/security-headers.js';
import { installStudyGuard } from './http/study-guard.js';
import { advisoryRoutes } from './modules/advisory/advisory.routes.js';
import { advisoryPatientRoutes } from './modules/advisory/advisory-patient.routes.js';
import { auditRoutes } from './modules/audit/audit.routes.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { operLogRoutes } from './modules/monitor/operlog.routes.js';
import { installOperationLog } from './modules/monitor/operlog.service.js';
import { installJobs } from './modules/jobs/jobs.install.js';
import { installRealtime } from './modules/realtime/realtime.install.js';
import { configRoutes } from './modules/system/config.routes.js';
import { securitySettingsRoutes } from './modules/system/security-settings.routes.js';
import { noticeRoutes } from './modules/system/notice.routes.js';
import { globalSearchRoutes } from './modules/global-search/global-search.routes.js';
import { deptRoutes } from './modules/system/dept.routes.js';
import { menuRoutes } from './modules/system/menu.routes.js';
import { roleRoutes } from './modules/system/role.routes.js';
import { userRoutes } from './modules/system/user.routes.js';
import { crfDataRoutes } from './modules/crf-data/crf-data.routes.js';
import { dataImportRoutes } from './modules/data-import/data-import.routes.js';
import { doubtRoutes } from './modules/doubt/doubt.routes.js';
import { commentRoutes } from './modules/comments/comments.routes.js';
import { doubleEntryRoutes } from './modules/double-entry/double-entry.routes.js';
import { qualityRoutes } from './modules/quality/quality.routes.js';
import { labRangeRoutes } from './modules/lab-ranges/lab-ranges.routes.js';
import { messagingRoutes } from './modules/messaging/messaging.routes.js';
import { codingRoutes } from './modules/coding/coding.routes.js';
import { subscribeCoding } from './modules/coding/coding.subscriber.js';
import { exportRoutes } from './modules/export/export.routes.js';
import { subscribeSystemQueries } from './modules/doubt/system-queries.subscriber.js';
import { fileRoutes } from './modules/files/file.routes.js';
import { followRoutes } from './modules/follow/follow.routes.js';
import { subscribeFollowUp } from './modules/follow/follow-events.service.js';
import { homeRoutes } from './modules/home/home.routes.js';
import { calendarRoutes } from './modules/calendar/calendar.routes.js';
import { printRoutes } from './modules/print/print.routes.js';
import { randomizationRoutes } from './modules/randomization/randomization.routes.js';
import { recognitionRoutes } from './modules/recognition/recognition.routes.js';
import { patientPortalRoutes } from './modules/patient-portal/patient-portal.routes.js';
import { searchRoutes } from './modules/search/search.routes.js';
import { apiTokenRoutes } from './modules/redcap/api-token.routes.js';
import { redcapRoutes } from './modules/redcap/redcap.routes.js';
import { crfRoutes } from './modules/study/crf.routes.js';
import { amendmentRoutes } from './modules/amendment/amendment.routes.js';
import { setupRoutes } from './modules/study/setup.routes.js';
import { staffRoutes } from './modules/study/staff.routes.js';
import { studyRoutes } from './modules/study/study.routes.js';
import { subjectRoutes } from './modules/subjects/subject.routes.js';
import { spineRoutes } from './modules/spine/spine.routes.js';
import { expertRoutes } from './modules/expert/expert.routes.js';
import { hospitalRoutes } from './modules/hospital/hospital.routes.js';
import { knowledgeRoutes } from './modules/knowledge/knowledge.routes.js';
import { medicalRoutes } from './modules/medical/medical.routes.js';
import { lockRoutes } from './modules/locks/lock.routes.js';
import { safetyRoutes } from './modules/safety/safety.routes.js';
import { subscribeSafety } from './modules/safety/safety.subscriber.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Resolves when every operation-log row queued so far is written (tests, shutdown). */
    flushOperLogs(): Promise<void>;
  }
}

export interface BuildOptions {
  logger?: FastifyServerOptions['logger'];
  /** Serve the built web app when it exists (off in API tests). */
  serveWeb?: boolean;
}

export async function buildApp(ctx: AppContext, opts: BuildOptions = {}) {
  const app = Fastify({
    logger: withRequestLogRules(opts.logger),
    trustProxy: ctx.config.trustProxy,
    genReqId: () => crypto.randomUUID(),
    bodyLimit: 10 * 1024 * 1024,
    // A client that stops sending is cut off, so slow or truncated bodies cannot hold sockets and handlers forever.
    ...serverTimeoutOptions(ctx.config.httpTimeouts),
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandler(app);
  installRequestTimeouts(app, ctx.config.httpTimeouts);

  installInputBounds(app);
  await installSecurityHeaders(app, ctx.config);
  // Per-address limits count in Redis beside the kv store when REDIS_URL is set, so N app servers behind a
  // load balancer enforce one limit together. Without Redis (the embedded default: one process) they count
  // in this process's memory, which is the whole installation.
  const limitStore = ctx.kv.redis;
  await app.register(rateLimit, {
    global: false,
    ...(limitStore ? { redis: limitStore.client, nameSpace: `${limitStore.prefix}rate-limit:` } : {}),
  });
  await app.register(swagger, {
    openapi: {
      info: { title: '临床科研电子数据采集平台 API', version: '0.1.0' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });
  // The API's map is not for anonymous callers unless the deployment says so (EDC_API_DOCS=public).
  await app.register(swaggerUi, {
    routePrefix: '/api/docs',
    ...(ctx.config.apiDocs === 'public' ? {} : { uiHooks: { onRequest: requireAdministrator(ctx) } }),
  });

  // Reactions to committed changes run after commit, on one app server (modules/events/outbox.ts).
  app.addHook('onReady', () => ctx.events.start(app.log.child({ module: 'events' })));
  app.addHook('onClose', () => ctx.events.stop());
  subscribeSystemQueries(ctx);
  subscribeFollowUp(ctx);
  subscribeSafety(ctx);
  subscribeCoding(ctx);

  installAuth(app, ctx);
  installStudyGuard(app, ctx);
  installUploadSlots(app);
  installOperationLog(app, ctx);
  installRealtime(app, ctx);

  authRoutes(app, ctx);
  configRoutes(app, ctx);
  securitySettingsRoutes(app, ctx);
  noticeRoutes(app, ctx);
  globalSearchRoutes(app, ctx);
  deptRoutes(app, ctx);
  userRoutes(app, ctx);
  roleRoutes(app, ctx);
  menuRoutes(app, ctx);
  operLogRoutes(app, ctx);
  auditRoutes(app, ctx);
  studyRoutes(app, ctx);
  staffRoutes(app, ctx);
  crfRoutes(app, ctx);
  amendmentRoutes(app, ctx);
  setupRoutes(app, ctx);
  subjectRoutes(app, ctx);
  crfDataRoutes(app, ctx);
  fileRoutes(app, ctx);
  printRoutes(app, ctx);
  homeRoutes(app, ctx);
  calendarRoutes(app, ctx);
  doubtRoutes(app, ctx);
  commentRoutes(app, ctx);
  doubleEntryRoutes(app, ctx);
  qualityRoutes(app, ctx);
  labRangeRoutes(app, ctx);
  messagingRoutes(app, ctx);
  codingRoutes(app, ctx);
  followRoutes(app, ctx);
  safetyRoutes(app, ctx);
  searchRoutes(app, ctx);
  apiTokenRoutes(app, ctx);
  redcapRoutes(app, ctx);
  dataImportRoutes(app, ctx);
  exportRoutes(app, ctx);
  randomizationRoutes(app, ctx);
  spineRoutes(app, ctx);
  recognitionRoutes(app, ctx);
  knowledgeRoutes(app, ctx);
  expertRoutes(app, ctx);
  hospitalRoutes(app, ctx);
  medicalRoutes(app, ctx);
  lockRoutes(app, ctx);
  patientPortalRoutes(app, ctx);
  advisoryRoutes(app, ctx);
  advisoryPatientRoutes(app, ctx);
  installJobs(app, ctx);

  const webDist = ctx.config.webDist;
  const serveWeb = opts.serveWeb === true && fs.existsSync(path.join(webDist, 'index.html'));
  if (serveWeb) await app.register(fastifyStatic, { root: webDist, wildcard: true, index: ['index.html'] });
  app.setNotFoundHandler((request, reply) => {
    // The browser app owns every non-API path (client-side routing).
    if (serveWeb && request.method === 'GET' && !request.url.startsWith('/api/')) {
      return reply.type('text/html').sendFile('index.html');
    }
    return reply.status(404).send(notFoundBody);
  });

  return app;
}
