import {
  REALTIME_HUBS,
  REALTIME_RETRY_MS,
  STUDY_JOIN,
  STUDY_LEAVE,
  type RealtimeHub,
  type RealtimeRefusal,
  type StudyPushes,
  type UserPushes,
} from '@ecrf/core';

/** The part of a socket.io-client Socket the manager uses (a fake in unit tests). */
export interface HubSocket {
  connect(): unknown;
  disconnect(): unknown;
  on(event: string, listener: (...args: any[]) => void): unknown;
  emit(event: string, ...args: unknown[]): unknown;
}

/** Builds a hub's socket: not connected yet, Socket.IO's own reconnection off (the manager retries). */
export type OpenSocket = (hub: RealtimeHub, auth: (cb: (data: { token: string | null }) => void) => void) => HubSocket;

export type Pushes = UserPushes & StudyPushes;
export type PushName = keyof Pushes;

export interface RealtimeClientDeps {
  openSocket: OpenSocket;
  /** The current access token, read at every (re)connection so a refreshed token is used. */
  getToken: () => string | null;
  /** After a 401: renew the access token once (the REST refresh); true when a new token is in place. */
  renew: () => Promise<boolean>;
  /** The token is no good and cannot be renewed: end the session and go to /login (RT-03). */
  onSessionEnded: () => void;
  onPush: <E extends PushName>(event: E, payload: Pushes[E]) => void;
  /** A hub (re)connected: pushes may have been missed while it was down. */
  onConnected?: (hub: RealtimeHub) => void;
  retryMs?: number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

const PUSHES_BY_HUB: Record<RealtimeHub, readonly PushName[]> = {
  eventhub: ['record.saved', 'record.queries', 'data.changed'],
  toolsignalhub: ['job.progress'],
  personsignalhub: ['counts', 'notice', 'randomization.unblinded', 'sys.notice', 'consult', 'sae'],
};

function isUnauthorized(error: unknown): boolean {
  const data = (error as { data?: Partial<RealtimeRefusal> } | null)?.data;
  return data?.status === 401;
}

/**
 * One connection manager for the three hubs (platform §7). Any connection error or lost connection
 * is retried after 5 seconds (RT-02); a refusal with status 401 renews the token once through the REST
 * refresh and, if that fails or the fresh token is refused too, ends the session (RT-03).
 */
export function createRealtimeClient(deps: RealtimeClientDeps) {
  const retryMs = deps.retryMs ?? REALTIME_RETRY_MS;
  const setTimer = deps.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
  const clearTimer = deps.clearTimer ?? ((handle) => clearTimeout(handle as ReturnType<typeof setTimeout>));
  const sockets = new Map<RealtimeHub, HubSocket>();
  const retries = new Map<RealtimeHub, unknown>();
  let running = false;
  let studyId: number | null = null;
  let renewing = false;
  /** A token was renewed after a 401 and no hub has connected since: a second 401 ends the session. */
  let renewedSince401 = false;

  const cancelRetry = (hub: RealtimeHub) => {
    if (retries.has(hub)) clearTimer(retries.get(hub));
    retries.delete(hub);
  };

  const scheduleRetry = (hub: RealtimeHub) => {
    if (!running || renewing || retries.has(hub)) return;
    retries.set(
      hub,
      setTimer(() => {
        retries.delete(hub);
        if (running && !renewing) sockets.get(hub)?.connect();
      }, retryMs),
    );
  };

  const unauthorized = async () => {
    if (renewing || !running) return;
    renewing = true;
    for (const hub of REALTIME_HUBS) {
      cancelRetry(hub);
      sockets.get(hub)?.disconnect();
    }
    let renewed = false;
    if (!renewedSince401) {
      try {
        renewed = await deps.renew();
      } catch {
        renewed = false;
      }
    }
    renewing = false;
    if (!running) return;
    if (renewed) {
      renewedSince401 = true;
      for (const hub of REALTIME_HUBS) sockets.get(hub)?.connect();
    } else {
      stop();
      deps.onSessionEnded();
    }
  };

  const joinStudy = (socket: HubSocket) => {
    if (studyId !== null) socket.emit(STUDY_JOIN, studyId, () => undefined);
  };

  function open(hub: RealtimeHub) {
    const socket = deps.openSocket(hub, (cb) => cb({ token: deps.getToken() }));
    socket.on('connect', () => {
      cancelRetry(hub);
      renewedSince401 = false;
      if (hub === 'eventhub') joinStudy(socket);
      deps.onConnected?.(hub);
    });
    socket.on('connect_error', (error: unknown) => {
      if (isUnauthorized(error)) void unauthorized();
      else scheduleRetry(hub);
    });
    socket.on('disconnect', (reason: string) => {
      // Our own disconnect (stop, or the pause while renewing) is not an error.
      if (reason === 'io client disconnect' || !running || renewing) return;
      // The server ends a socket when its token expires: reconnect at once with the current token.
      if (reason === 'io server disconnect') socket.connect();
      else scheduleRetry(hub);
    });
    for (const event of PUSHES_BY_HUB[hub]) {
      socket.on(event, (payload: Pushes[typeof event]) => deps.onPush(event, payload));
    }
    sockets.set(hub, socket);
    socket.connect();
  }

  function stop() {
    running = false;
    for (const hub of REALTIME_HUBS) cancelRetry(hub);
    for (const socket of sockets.values()) socket.disconnect();
    sockets.clear();
  }

  return {
    start() {
      if (running) return;
      running = true;
      renewedSince401 = false;
      for (const hub of REALTIME_HUBS) open(hub);
    },
    stop,
    /** The study whose events this browser tab follows (the study of the pages open), or none. */
    watchStudy(next: number | null) {
      if (next === studyId) return;
      const events = sockets.get('eventhub');
      if (studyId !== null && next === null) events?.emit(STUDY_LEAVE);
      studyId = next;
      if (events) joinStudy(events);
    },
    get running() {
      return running;
    },
  };
}

export type RealtimeClient = ReturnType<typeof createRealtimeClient>;
