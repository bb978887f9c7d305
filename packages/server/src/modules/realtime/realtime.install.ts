import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { loadCurrentUser } from '../../http/auth.js';
import { studyAccessOf } from '../../shared/study-access-of.js';
import { viewableCrfIds } from '../../shared/study-access.js';
import { jobSummary } from '../jobs/job-queue.js';
import { subscribeRealtime } from './realtime.subscribers.js';

/** One set of subscribers per context, however many apps are built on it (tests build several). */
const subscribed = new WeakSet<AppContext>();

/**
 * Serves the realtime hubs on the app's own HTTP server, authenticating each handshake the way the REST
 * API authenticates a request and admitting to a study room by the REST study guard's rule.
 */
export function installRealtime(app: FastifyInstance, ctx: AppContext): void {
  const hubs = ctx.realtime.attach(app.server, {
    authenticate: (token) => loadCurrentUser(ctx, token),
    studyAccess: async (user, studyId) => {
      const access = await studyAccessOf(ctx, user.userId, user.permissions, studyId);
      return access ? { viewableCrfIds: viewableCrfIds(access), siteIds: access.siteIds } : null;
    },
    clock: ctx.clock,
    log: app.log,
  });
  if (!subscribed.has(ctx)) {
    subscribed.add(ctx);
    // Query counts and notices, form saves: reactions to committed changes (delivered once, on one app server).
    subscribeRealtime(ctx, ctx.events);
    // A job's changes are seen by the process that made them; the push reaches the owner on any app server.
    ctx.jobs.onProgress((job) => ctx.realtime.toUser(job.ownerId, 'job.progress', jobSummary(job)));
  }
  // Open websockets would hold the HTTP server's close: end this server's sockets first.
  app.addHook('preClose', async () => hubs.disconnectLocal());
  app.addHook('onClose', async () => hubs.close());
}
