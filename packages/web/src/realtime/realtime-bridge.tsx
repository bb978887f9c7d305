import { useEffect, useRef } from 'react';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { App } from 'antd';
import { io } from 'socket.io-client';
import {
  REALTIME_PATH,
  type CalendarReminderPush,
  type CountsPush,
  type NoticePush,
  type UnblindingPush,
} from '@ecrf/core';
import dayjs from 'dayjs';
import { eventsApi } from '../api/events.api';
import { randomizationApi } from '../api/randomization.api';
import { expireSession, MESSAGE_SECONDS, refreshTokens } from '../api/request';
import { queryKeys } from '../api/query-keys';
import { RANDOMIZATION_TEXT } from '../locales/randomization.zh-CN';
import { REALTIME_TEXT } from '../locales/realtime.zh-CN';
import { useAppStore } from '../stores/app.store';
import { useSession } from '../stores/session.store';
import { createRealtimeClient, type OpenSocket, type RealtimeClient } from './realtime-client';
import { dispatchPush } from './realtime-events';
import { browserSpeaker, type Speaker } from './speech';
import { useSpeechSetting } from './speech-setting';

const t = REALTIME_TEXT;

/** Every hub on the API's origin, websocket only (no sticky sessions needed behind a load balancer). */
export const openHubSocket: OpenSocket = (hub, auth) =>
  io(`${import.meta.env.VITE_API_BASE ?? ''}/${hub}`, {
    path: REALTIME_PATH,
    transports: ['websocket'],
    autoConnect: false,
    // The manager retries itself, after a fixed 5 s (RT-02).
    reconnection: false,
    auth,
  });

/** A refused realtime connection (401) that cannot be renewed: the session ends and the browser goes to /login (RT-03). */
export function endRealtimeSession(): void {
  expireSession('/login');
}

/** Renews the access token through the REST refresh after a refused handshake. */
export async function renewForRealtime(): Promise<boolean> {
  if (!useSession.getState().refreshToken) return false;
  try {
    await refreshTokens();
    return true;
  } catch {
    return false;
  }
}

export function noticeTitle(notice: NoticePush): string {
  if (notice.kind === 'calendar.reminder') return t.calendarReminder;
  return notice.kind === 'query.opened' ? t.queryOpened : t.queryAnswered;
}

/** A reminder's line: the event's start and its title, read under the user's own rights (the push carries no title). */
async function reminderText(push: CalendarReminderPush): Promise<string> {
  const when = push.allDay ? dayjs(push.startTime).format('YYYY-MM-DD') : dayjs(push.startTime).format('MM-DD HH:mm');
  try {
    const event = await eventsApi.get(push.studyId, push.eventId, true);
    return `${when} ${event.data.title}`;
  } catch {
    return when;
  }
}

/**
 * A `counts` push: the top bar's counts it carries replace the cached ones, and what they summarise reads again
 * (the calendar's events, the follow-up pages, the study home's query figures).
 */
export function applyCountsPush(queryClient: QueryClient, push: CountsPush): void {
  // A push carries the counts it concerns; the others stay as they are.
  if (push.events !== undefined) {
    queryClient.setQueriesData(
      {
        queryKey: queryKeys.calendar.counts(),
        predicate: (query) => String(query.queryKey[2]) === String(push.studyId),
      },
      push.events,
    );
    void queryClient.invalidateQueries({ queryKey: queryKeys.calendar.lists() });
  }
  if (push.visits !== undefined) {
    queryClient.setQueriesData(
      {
        queryKey: queryKeys.calendar.visitCounts(),
        predicate: (query) => String(query.queryKey[2]) === String(push.studyId),
      },
      push.visits,
    );
    // A visit changed state: 随访概览 and 随访记录, when open, read again (under the reader's own rights).
    void queryClient.invalidateQueries({ queryKey: queryKeys.follow.all() });
  }
  if (push.saes !== undefined) {
    queryClient.setQueriesData(
      {
        queryKey: queryKeys.safety.counts(),
        predicate: (query) => String(query.queryKey[2]) === String(push.studyId),
      },
      push.saes,
    );
    // A report appeared or changed state: 不良事件, when open, reads its clocks again.
    void queryClient.invalidateQueries({ queryKey: queryKeys.safety.lists() });
  }
  if (push.doubts === undefined) return;
  queryClient.setQueriesData(
    {
      queryKey: queryKeys.doubt.counts(),
      predicate: (query) => String(query.queryKey[2]) === String(push.studyId),
    },
    push.doubts,
  );
  // The study home's figures count the same queries.
  void queryClient.invalidateQueries({
    queryKey: queryKeys.studyIndex.all(),
    predicate: (query) => String(query.queryKey[1]) === String(push.studyId),
  });
}

/**
 * Connects the signed-in user to the realtime hubs and turns pushes into what the user sees: live top-bar
 * counts, notices (shown, and spoken when 语音播报 is on), and events for the pages that listen for them.
 */
export function RealtimeBridge() {
  const token = useSession((s) => s.token);
  const mustChangePassword = useSession((s) => s.setPasswordMust);
  const userId = useSession((s) => s.user?.userId ?? null);
  const studyId = useAppStore((s) => s.studyId);
  const queryClient = useQueryClient();
  const { notification } = App.useApp();
  const client = useRef<RealtimeClient | null>(null);
  const speaker = useRef<Speaker | null | undefined>(undefined);
  const seen = useRef(new Set<number | string>());
  const signedIn = Boolean(token) && !mustChangePassword;

  useEffect(() => {
    if (!signedIn || userId === null) return;
    const onCounts = (push: CountsPush) => applyCountsPush(queryClient, push);
    const say = (title: string, text: string) => {
      if (useSpeechSetting.getState().isOn(userId)) {
        speaker.current ??= browserSpeaker();
        speaker.current?.say(t.spoken(title, text));
      }
    };
    const onReminder = async (push: CalendarReminderPush) => {
      const text = await reminderText(push);
      notification.info({
        key: `calendar-${push.eventId}-${push.startTime}`,
        title: t.calendarReminder,
        description: text,
        duration: 0,
        placement: 'bottomRight',
      });
      say(t.calendarReminder, text);
    };
    const onNotice = (push: NoticePush) => {
      // Delivery is at least once: a notice comes back with the same event id at most once more.
      const key = push.kind === 'calendar.reminder' ? `calendar:${push.eventId}:${push.startTime}` : push.eventId;
      if (seen.current.has(key)) return;
      seen.current.add(key);
      if (push.kind === 'calendar.reminder') {
        void onReminder(push);
        return;
      }
      if (seen.current.size > 200) seen.current = new Set([...seen.current].slice(-100));
      const title = noticeTitle(push);
      notification.info({
        key: `notice-${push.eventId}`,
        title,
        description: push.crfTitle,
        duration: MESSAGE_SECONDS,
        // Below the top bar's buttons, so the red dot it announces stays in sight.
        placement: 'bottomRight',
      });
      say(title, push.crfTitle);
      void queryClient.invalidateQueries({ queryKey: queryKeys.doubt.lists() });
    };
    // Emergency unblinding (issue 15): the study's managers are told at once. The push carries ids only; the
    // randomization number is read under the manager's own rights.
    const onUnblinded = async (push: UnblindingPush) => {
      const key = `unblind:${push.eventId}`;
      if (seen.current.has(key)) return;
      seen.current.add(key);
      void queryClient.invalidateQueries({ queryKey: queryKeys.randomization.all() });
      void queryClient.invalidateQueries({ queryKey: queryKeys.subjectRecord.lists() });
      let who = String(push.subjectId);
      try {
        const result = await randomizationApi.subject(push.studyId, push.subjectId, true);
        if (result.data) who = result.data.randomizationNo;
      } catch {
        // The notice still goes out, naming the patient by id.
      }
      const title = RANDOMIZATION_TEXT.unblindedNoticeTitle;
      const text = RANDOMIZATION_TEXT.unblindedNotice(who);
      notification.warning({ key, title, description: text, duration: 0, placement: 'bottomRight' });
      say(title, text);
    };
    const realtime = createRealtimeClient({
      openSocket: openHubSocket,
      getToken: () => useSession.getState().token,
      renew: renewForRealtime,
      onSessionEnded: () => {
        queryClient.clear();
        endRealtimeSession();
      },
      onConnected: (hub) => {
        // Counts may have changed while the connection was down.
        if (hub === 'personsignalhub') {
          void queryClient.invalidateQueries({ queryKey: queryKeys.doubt.counts() });
          void queryClient.invalidateQueries({ queryKey: queryKeys.calendar.counts() });
          void queryClient.invalidateQueries({ queryKey: queryKeys.calendar.visitCounts() });
          void queryClient.invalidateQueries({ queryKey: queryKeys.safety.counts() });
        }
      },
      onPush: (event, payload) => {
        if (event === 'counts') onCounts(payload as CountsPush);
        else if (event === 'notice') onNotice(payload as NoticePush);
        else if (event === 'randomization.unblinded') void onUnblinded(payload as UnblindingPush);
        dispatchPush(event, payload);
      },
    });
    client.current = realtime;
    realtime.watchStudy(Number(useAppStore.getState().studyId) || null);
    realtime.start();
    return () => {
      realtime.stop();
      client.current = null;
      speaker.current?.stop();
    };
  }, [signedIn, userId, queryClient, notification]);

  useEffect(() => {
    client.current?.watchStudy(Number(studyId) || null);
  }, [studyId]);

  return null;
}
