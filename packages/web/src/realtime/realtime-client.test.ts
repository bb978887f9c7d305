import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REALTIME_HUBS, type RealtimeHub } from '@ecrf/core';
import { createRealtimeClient, type HubSocket, type RealtimeClientDeps } from './realtime-client';

/** A socket whose server side the test plays: it fires the events a socket.io-client Socket would. */
class FakeSocket implements HubSocket {
  readonly listeners = new Map<string, ((...args: any[]) => void)[]>();
  connects = 0;
  disconnects = 0;
  readonly emitted: unknown[][] = [];
  tokens: (string | null)[] = [];

  constructor(
    readonly hub: RealtimeHub,
    private readonly auth: (cb: (data: { token: string | null }) => void) => void,
  ) {}

  connect() {
    this.connects += 1;
    this.auth((data) => this.tokens.push(data.token));
  }
  disconnect() {
    this.disconnects += 1;
    this.fire('disconnect', 'io client disconnect');
  }
  on(event: string, listener: (...args: any[]) => void) {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
  }
  emit(event: string, ...args: unknown[]) {
    this.emitted.push([event, ...args]);
  }
  fire(event: string, ...args: unknown[]) {
    for (const listener of this.listeners.get(event) ?? []) listener(...args);
  }
}

const refusal401 = Object.assign(new Error('登录超时'), { data: { status: 401, code: 401, msg: '登录超时' } });

let sockets: Map<RealtimeHub, FakeSocket>;
let token: string | null;

function setup(overrides: Partial<RealtimeClientDeps> = {}) {
  sockets = new Map();
  const deps: RealtimeClientDeps = {
    openSocket: (hub, auth) => {
      const socket = new FakeSocket(hub, auth);
      sockets.set(hub, socket);
      return socket;
    },
    getToken: () => token,
    renew: vi.fn(async () => false),
    onSessionEnded: vi.fn(),
    onPush: vi.fn(),
    onConnected: vi.fn(),
    ...overrides,
  };
  const client = createRealtimeClient(deps);
  client.start();
  return { client, deps, socket: (hub: RealtimeHub) => sockets.get(hub)! };
}

beforeEach(() => {
  vi.useFakeTimers();
  token = 'token-1';
});
afterEach(() => vi.useRealTimers());

describe('realtime connection manager', () => {
  it('RT-01: opens eventhub, toolsignalhub and personsignalhub with the token supplied', () => {
    const { socket } = setup();
    for (const hub of REALTIME_HUBS) {
      expect(socket(hub).connects).toBe(1);
      expect(socket(hub).tokens).toEqual(['token-1']);
    }
  });

  it('RT-02: after a connection error the hub connects again after 5 seconds, not before', () => {
    const { socket } = setup();
    const events = socket('eventhub');
    events.fire('connect_error', new Error('xhr poll error'));
    vi.advanceTimersByTime(4_999);
    expect(events.connects).toBe(1);
    vi.advanceTimersByTime(1);
    expect(events.connects).toBe(2);
    // A refusal other than 401 (a server error in the handshake) is retried the same way.
    events.fire('connect_error', Object.assign(new Error('系统异常'), { data: { status: 403 } }));
    vi.advanceTimersByTime(5_000);
    expect(events.connects).toBe(3);
    expect(socket('toolsignalhub').connects).toBe(1);
  });

  it('RT-02: a connection lost later is retried after 5 seconds, with the token current then', () => {
    const { socket, deps } = setup();
    const person = socket('personsignalhub');
    person.fire('connect');
    expect(deps.onConnected).toHaveBeenCalledWith('personsignalhub');
    person.fire('disconnect', 'transport close');
    token = 'token-2';
    vi.advanceTimersByTime(4_999);
    expect(person.connects).toBe(1);
    vi.advanceTimersByTime(1);
    expect(person.connects).toBe(2);
    expect(person.tokens).toEqual(['token-1', 'token-2']);
  });

  it('a socket the server ended (its token expired) reconnects at once with the current token', () => {
    const { socket } = setup();
    const tool = socket('toolsignalhub');
    tool.fire('connect');
    token = 'token-2';
    tool.fire('disconnect', 'io server disconnect');
    expect(tool.connects).toBe(2);
    expect(tool.tokens.at(-1)).toBe('token-2');
  });

  it('RT-03: a 401 refusal that cannot be renewed ends the session once and stops every hub', async () => {
    const { socket, deps, client } = setup();
    for (const hub of REALTIME_HUBS) socket(hub).fire('connect_error', refusal401);
    await vi.runAllTimersAsync();
    expect(deps.renew).toHaveBeenCalledTimes(1);
    expect(deps.onSessionEnded).toHaveBeenCalledTimes(1);
    expect(client.running).toBe(false);
    vi.advanceTimersByTime(60_000);
    for (const hub of REALTIME_HUBS) expect(socket(hub).connects).toBe(1);
  });

  it('RT-03: a 401 after an expired token is renewed once; the hubs reconnect with the new token', async () => {
    const renew = vi.fn(async () => {
      token = 'token-2';
      return true;
    });
    const { socket, deps } = setup({ renew });
    socket('eventhub').fire('connect_error', refusal401);
    socket('personsignalhub').fire('connect_error', refusal401);
    await vi.waitFor(() => expect(socket('eventhub').connects).toBe(2));
    expect(renew).toHaveBeenCalledTimes(1);
    for (const hub of REALTIME_HUBS) expect(socket(hub).tokens.at(-1)).toBe('token-2');
    // The new token refused too: the session is over.
    socket('eventhub').fire('connect_error', refusal401);
    await vi.waitFor(() => expect(deps.onSessionEnded).toHaveBeenCalledTimes(1));
    expect(renew).toHaveBeenCalledTimes(1);
  });

  it('joins the watched study on eventhub at every connection, and leaves it', () => {
    const { socket, client } = setup();
    const events = socket('eventhub');
    client.watchStudy(7);
    events.fire('connect');
    expect(events.emitted.filter((e) => e[0] === 'study:join').map((e) => e[1])).toEqual([7, 7]);
    client.watchStudy(null);
    expect(events.emitted.at(-1)).toEqual(['study:leave']);
  });

  it('hands each hub its pushes', () => {
    const { socket, deps } = setup();
    socket('personsignalhub').fire('counts', { studyId: 1, doubts: 2 });
    socket('eventhub').fire('record.saved', { studyId: 1, subjectId: 2, crfId: 3, recordId: 4, by: 5 });
    expect(deps.onPush).toHaveBeenCalledWith('counts', { studyId: 1, doubts: 2 });
    expect(deps.onPush).toHaveBeenCalledWith('record.saved', {
      studyId: 1,
      subjectId: 2,
      crfId: 3,
      recordId: 4,
      by: 5,
    });
  });

  it('stop ends every hub and cancels a waiting retry', () => {
    const { socket, client } = setup();
    socket('eventhub').fire('connect_error', new Error('down'));
    client.stop();
    vi.advanceTimersByTime(10_000);
    expect(socket('eventhub').connects).toBe(1);
    for (const hub of REALTIME_HUBS) expect(socket(hub).disconnects).toBe(1);
  });
});
