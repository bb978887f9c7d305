import crypto from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type * as RedisAdapter from '@socket.io/redis-adapter';
import type * as IORedis from 'ioredis';
import type { Redis } from 'ioredis';
import { Server, type Namespace, type Socket } from 'socket.io';
import { loadCommonJs } from '../../shared/load-common-js.js';
import {
  HUB_OF_EVENT,
  REALTIME_HUBS,
  REALTIME_PATH,
  STUDY_JOIN,
  STUDY_LEAVE,
  type RealtimeHub,
  type RealtimeRefusal,
  type StudyJoinAnswer,
  type StudyPushes,
  type UserPushes,
} from '@ecrf/core';

/** What the hubs need to know about a token's holder (loaded the way the REST API loads it). */
export interface RealtimeUser {
  userId: number;
  permissions: string[];
  setPasswordMust: boolean;
}

/**
 * A study the caller may watch, the forms whose readers they are (`null`: every form) and the sites whose patients
 * they see (`null`: every site; 分中心).
 */
export interface RealtimeStudyAccess {
  viewableCrfIds: number[] | null;
  siteIds: number[] | null;
}

export interface RealtimeDeps {
  /** Null for a missing, forged, expired or revoked token, or a disabled user: the REST API's 401. */
  authenticate(token: string): Promise<RealtimeUser | null>;
  /** The REST study guard's rule (staff of the study, or study:manage); null refuses. */
  studyAccess(user: RealtimeUser, studyId: number): Promise<RealtimeStudyAccess | null>;
  clock: () => Date;
  log: FastifyBaseLogger;
}

/** Kept on the socket and visible across app servers (fetchSockets): ids only, never the token. */
interface SocketData {
  userId: number;
  studyId: number | null;
}

export interface RealtimeOptions {
  /** With it, the Socket.IO Redis adapter carries every push to the sockets of every app server. */
  redisUrl?: string | undefined;
  /** The Redis channel prefix shared by the app servers of one deployment. */
  key?: string;
}

/** What services use: send to one user, or to one study's watchers. */
export interface Realtime {
  toUser<E extends keyof UserPushes>(userId: number, event: E, payload: UserPushes[E]): void;
  /**
   * With `only`, a push about one patient's form: only to the watchers who may read that form and see that patient's
   * site (`siteId` null: a patient with no site, seen by all-sites watchers only).
   */
  toStudy<E extends keyof StudyPushes>(
    studyId: number,
    event: E,
    payload: StudyPushes[E],
    only?: { crfId: number; siteId: number | null },
  ): void;
  /** The users with a socket watching the study, on any app server. */
  watchers(studyId: number): Promise<number[]>;
  /**
   * Closes the user's sockets, on every app server, but those opened in the session kept: called once revoked
   * sessions are committed, so a stolen token's socket stops receiving pushes at once instead of at its expiry.
   */
  endSessions(userId: number, except?: string): void;
  /** Closes the sockets opened in one session (signed out, or its refresh token family revoked as stolen). */
  endSession(sessionId: string): void;
}

/** The hubs as served on one HTTP server. */
export interface AttachedHubs {
  /** Ends this server's sockets (before the HTTP server closes, so it is not held open by them). */
  disconnectLocal(): void;
  close(): Promise<void>;
}

export interface RealtimeHubs extends Realtime {
  /**
   * Serves the hubs on the API's HTTP server (same port, path /socket.io). Tests build more than one app on
   * one context: each gets its own attachment, and pushes reach the sockets of all of them.
   */
  attach(server: HttpServer, deps: RealtimeDeps): AttachedHubs;
  close(): Promise<void>;
}

export const LOGIN_TIMEOUT = '登录超时';
const NOT_MEMBER = '您未参与该项目';

const userRoom = (userId: number) => `user:${userId}`;
const studyRoom = (studyId: number) => `study:${studyId}`;
/** A form's readers who see every site. */
const formRoom = (studyId: number, crfId: number | '*') => `study:${studyId}:crf:${crfId}`;
/**
 * A form's readers who see one site among others (分中心): a site-scoped watcher joins one of these per site and form,
 * never a formRoom, so that a push about a patient reaches the form's readers at that patient's site only (Socket.IO
 * sends to a union of rooms, never to an intersection, hence a room per pair).
 */
const siteFormRoom = (studyId: number, siteId: number, crfId: number | '*') =>
  `study:${studyId}:site:${siteId}:crf:${crfId}`;
const sessionRoom = (sessionId: string) => `session:${sessionId}`;

function refusal(status: 401 | 403, msg: string): Error {
  const data: RealtimeRefusal = { status, code: status, msg };
  return Object.assign(new Error(msg), { data });
}

/** `auth: { token }` in the handshake; an `access_token` query for clients that cannot send one. */
function tokenOf(socket: Socket): string | null {
  const auth = socket.handshake.auth as { token?: unknown } | undefined;
  if (typeof auth?.token === 'string' && auth.token) return auth.token;
  const query = socket.handshake.query.access_token;
  return typeof query === 'string' && query ? query : null;
}

/** The claims of an (already verified) access token. */
function claimsOf(token: string): { exp?: unknown; sid?: unknown } {
  try {
    return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as object;
  } catch {
    return {};
  }
}

/** When the (already verified) access token stops being valid. */
function expiryOf(token: string): number | null {
  const { exp } = claimsOf(token);
  return typeof exp === 'number' ? exp * 1000 : null;
}

/** Node timers take at most 2^31-1 ms. */
const MAX_TIMER_MS = 2_147_483_647;

export function createRealtime(options: RealtimeOptions = {}): RealtimeHubs {
  interface Attachment extends AttachedHubs {
    io: Server;
  }
  const attached: Attachment[] = [];

  /**
   * Where a push is sent from: with Redis one server's adapter reaches every server (these included);
   * in memory, each attachment holds its own sockets.
   */
  const senders = (name: RealtimeHub): Namespace[] =>
    (options.redisUrl ? attached.slice(0, 1) : attached).map((a) => a.io.of(`/${name}`));

  function serve(nsp: Namespace, deps: RealtimeDeps, expiryTimers: Set<NodeJS.Timeout>) {
    nsp.use((socket, next) => {
      const token = tokenOf(socket);
      if (!token) return next(refusal(401, LOGIN_TIMEOUT));
      deps.authenticate(token).then(
        (user) => {
          if (!user) return next(refusal(401, LOGIN_TIMEOUT));
          if (user.setPasswordMust) return next(refusal(403, '请先修改初始密码'));
          const data: SocketData = { userId: user.userId, studyId: null };
          socket.data = data;
          next();
        },
        (err: unknown) => {
          deps.log.error({ err, hub: nsp.name }, 'realtime handshake failed');
          next(new Error('系统异常'));
        },
      );
    });

    nsp.on('connection', (socket: Socket) => {
      const data = socket.data as SocketData;
      const token = tokenOf(socket) ?? '';
      const { sid } = claimsOf(token);
      void socket.join(typeof sid === 'string' ? [userRoom(data.userId), sessionRoom(sid)] : userRoom(data.userId));
      deps.log.debug({ userId: data.userId, hub: nsp.name }, 'realtime connected');

      // A socket lives no longer than the token it was opened with: the client reconnects with a fresh one,
      // and a revoked session or disabled user is refused then.
      const expiresAt = expiryOf(token);
      let timer: NodeJS.Timeout | null = null;
      if (expiresAt !== null) {
        timer = setTimeout(
          () => socket.disconnect(true),
          Math.min(MAX_TIMER_MS, Math.max(0, expiresAt - deps.clock().getTime())),
        );
        timer.unref();
        expiryTimers.add(timer);
      }

      const leaveStudy = () => {
        for (const room of socket.rooms) if (room.startsWith('study:')) void socket.leave(room);
        data.studyId = null;
      };

      socket.on(STUDY_JOIN, (studyId: unknown, ack?: unknown) => {
        const answer = (a: StudyJoinAnswer) => {
          if (typeof ack === 'function') (ack as (a: StudyJoinAnswer) => void)(a);
        };
        if (typeof studyId !== 'number' || !Number.isInteger(studyId) || studyId <= 0) {
          answer({ ok: false, status: 400, msg: '参数错误' });
          return;
        }
        void (async () => {
          // Membership and permissions are read now, not at the handshake: a user removed from the
          // study since then is refused, as the REST guard would refuse them.
          const user = await deps.authenticate(token);
          if (!user) {
            answer({ ok: false, status: 401, msg: LOGIN_TIMEOUT });
            socket.disconnect(true);
            return;
          }
          const access = await deps.studyAccess(user, studyId);
          leaveStudy();
          if (!access) {
            deps.log.info({ userId: user.userId, studyId, hub: nsp.name }, 'realtime study join refused');
            answer({ ok: false, status: 403, msg: NOT_MEMBER });
            return;
          }
          const rooms = [studyRoom(studyId)];
          const forms: Array<number | '*'> = access.viewableCrfIds ?? ['*'];
          if (access.siteIds === null) for (const crfId of forms) rooms.push(formRoom(studyId, crfId));
          else {
            for (const siteId of access.siteIds) {
              for (const crfId of forms) rooms.push(siteFormRoom(studyId, siteId, crfId));
            }
          }
          await socket.join(rooms);
          data.studyId = studyId;
          answer({ ok: true });
        })().catch((err: unknown) => {
          deps.log.error({ err, userId: data.userId, studyId }, 'realtime study join failed');
          answer({ ok: false, status: 403, msg: NOT_MEMBER });
        });
      });

      socket.on(STUDY_LEAVE, leaveStudy);

      socket.on('disconnect', () => {
        if (timer) {
          clearTimeout(timer);
          expiryTimers.delete(timer);
        }
      });
    });
  }

  return {
    attach(server, deps) {
      const io = new Server(server, {
        path: REALTIME_PATH,
        serveClient: false,
        // Clients only ever send a study id; nothing large comes in.
        maxHttpBufferSize: 16 * 1024,
      });
      let redis: { pub: Redis; sub: Redis } | null = null;
      if (options.redisUrl) {
        // Loaded only with Redis configured (shared/kv.ts).
        const { createAdapter } = loadCommonJs('@socket.io/redis-adapter') as typeof RedisAdapter;
        const { Redis } = loadCommonJs('ioredis') as typeof IORedis;
        const pub = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
        const sub = pub.duplicate();
        for (const client of [pub, sub]) {
          client.on('error', (err: Error) => deps.log.warn({ err: err.message }, 'realtime redis error'));
        }
        redis = { pub, sub };
        io.adapter(createAdapter(pub, sub, { key: options.key ?? 'edc-realtime' }));
      }
      const expiryTimers = new Set<NodeJS.Timeout>();
      for (const name of REALTIME_HUBS) serve(io.of(`/${name}`), deps, expiryTimers);

      const attachment: Attachment = {
        io,
        disconnectLocal() {
          for (const name of REALTIME_HUBS) io.of(`/${name}`).local.disconnectSockets(true);
        },
        async close() {
          const index = attached.indexOf(attachment);
          if (index < 0) return;
          attached.splice(index, 1);
          for (const timer of expiryTimers) clearTimeout(timer);
          expiryTimers.clear();
          attachment.disconnectLocal();
          io.engine.close();
          await Promise.allSettled(REALTIME_HUBS.map(async (name) => io.of(`/${name}`).adapter.close()));
          if (redis) await Promise.allSettled([redis.pub.quit(), redis.sub.quit()]);
        },
      };
      attached.push(attachment);
      return attachment;
    },

    toUser(userId, event, payload) {
      for (const nsp of senders(HUB_OF_EVENT[event])) nsp.to(userRoom(userId)).emit(event, payload);
    },

    toStudy(studyId, event, payload, only) {
      for (const nsp of senders(HUB_OF_EVENT[event])) {
        if (only) {
          const rooms = [formRoom(studyId, only.crfId), formRoom(studyId, '*')];
          if (only.siteId !== null) {
            rooms.push(siteFormRoom(studyId, only.siteId, only.crfId), siteFormRoom(studyId, only.siteId, '*'));
          }
          nsp.to(rooms).emit(event, payload);
        } else nsp.to(studyRoom(studyId)).emit(event, payload);
      }
    },

    endSessions(userId, except) {
      for (const name of REALTIME_HUBS) {
        for (const nsp of senders(name)) {
          const sockets = nsp.in(userRoom(userId));
          (except ? sockets.except(sessionRoom(except)) : sockets).disconnectSockets(true);
        }
      }
    },

    endSession(sessionId) {
      for (const name of REALTIME_HUBS) {
        for (const nsp of senders(name)) nsp.in(sessionRoom(sessionId)).disconnectSockets(true);
      }
    },

    async watchers(studyId) {
      const ids = new Set<number>();
      for (const nsp of senders('eventhub')) {
        for (const socket of await nsp.in(studyRoom(studyId)).fetchSockets()) {
          ids.add((socket.data as SocketData).userId);
        }
      }
      return [...ids];
    },

    async close() {
      await Promise.all([...attached].map((a) => a.close()));
    },
  };
}

/** A channel prefix no other process uses (tests sharing one Redis). */
export function isolatedRealtimeKey(): string {
  return `edc-realtime-${crypto.randomUUID()}`;
}
