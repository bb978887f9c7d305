import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { loadCurrentUser } from '../../http/auth.js';
import { studyAccessOf } from '../../http/study-guard.js';
import { viewableCrfIds } from '../../shared/study-access.js';
import { subscribeRealtime } from './realtime.subscribers.js';

/**
 * Serves the realtime hubs on the app's own HTTP server, authenticating each handshake the way the REST
 * API authenticates a request and admitting to a study room by the REST study guard's rule.
 */
export function installRealtime(app: FastifyInstance, ctx: AppContext): void {
  ctx.realtime.attach(app.server, {
    authenticate: (token) => loadCurrentUser(ctx, token),
    studyAccess: async (user, studyId) => {
      const access = await studyAccessOf(ctx, user.userId, user.permissions, studyId);
      return access ? { viewableCrfIds: viewableCrfIds(access) } : null;
    },
    clock: ctx.clock,
    log: app.log,
  });
  // Query counts and notices, form saves: reactions to committed changes (delivered once, on one app server).
  subscribeRealtime(ctx, ctx.events);
  // A job's changes are seen by the process that made them; the push reaches the owner on any app server.
  const stopJobProgress = ctx.jobs.onProgress((job) =>
    ctx.realtime.toUser(job.ownerId, 'job.progress', {
      jobId: job.jobId,
      kind: job.kind,
      state: job.state,
      progress: job.progress,
      message: job.message,
    }),
  );
  // Open websockets would hold the HTTP server's close: end this server's sockets first.
  app.addHook('preClose', async () => ctx.realtime.disconnectLocal());
  app.addHook('onClose', async () => {
    stopJobProgress();
    await ctx.realtime.close();
  });
}
