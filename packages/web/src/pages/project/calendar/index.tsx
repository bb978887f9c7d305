import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Button, Calendar, Result, Segmented, Spin } from 'antd';
import { LeftOutlined, PlusOutlined, RightOutlined } from '@ant-design/icons';
import dayjs, { type Dayjs } from 'dayjs';
import { MSG, nowString, todayString } from '@ecrf/core';
import { calendarVisitsApi, eventsApi, type CalendarEvent, type CalendarVisit } from '../../../api/events.api';
import { useNavigate } from 'react-router';
import { queryKeys } from '../../../api/query-keys';
import { CALENDAR_TEXT } from '../../../locales/calendar.zh-CN';
import { displayTimeZone } from '../../../utils/format-date';
import { useProjectStudy } from '../use-project-study';
import { eventsByDay, rangeOf, step, visibleDays, type CalendarView } from './calendar-range';
import { EventDialog, type EventDialogTarget } from './event-dialog';
import './calendar.css';

const C = CALENDAR_TEXT;
/** A month cell shows this many events; the rest are counted (and shown in the day view). */
const MONTH_CELL_EVENTS = 3;

function timeLabel(event: CalendarEvent, zone: string): string {
  return event.allDay ? C.allDay : nowString(new Date(event.startTime), zone).slice(11, 16);
}

function EventItem({
  event,
  zone,
  onOpen,
}: {
  event: CalendarEvent;
  zone: string;
  onOpen: (e: CalendarEvent) => void;
}) {
  return (
    <button
      type="button"
      className={`calendar-event${event.allDay ? ' calendar-event-all-day' : ''}`}
      onClick={(e) => {
        // Inside a month cell: opening the event must not also select the day (which adds one).
        e.stopPropagation();
        onOpen(event);
      }}
    >
      <span className="calendar-event-time">{timeLabel(event, zone)}</span>
      <span className="calendar-event-title">{event.title}</span>
      {event.subject && <span className="calendar-event-patient">{event.subject.identificationCode}</span>}
    </button>
  );
}

function VisitItem({ visit }: { visit: CalendarVisit }) {
  const navigate = useNavigate();
  return (
    <button
      type="button"
      className={`calendar-visit calendar-visit-${visit.state}`}
      title={`${visit.stateName} · ${C.window} ${visit.windowStart} ~ ${visit.windowEnd}`}
      onClick={(e) => {
        e.stopPropagation();
        void navigate(`/crf/${visit.subjectRecordId}`);
      }}
    >
      <span className="calendar-event-time">{C.visits}</span>
      <span className="calendar-event-title">
        {visit.identificationCode} {visit.visitName} · {visit.stateName}
      </span>
    </button>
  );
}

/** The visits of each day, by planned date. */
function visitsByDay(visits: readonly CalendarVisit[]): Map<string, CalendarVisit[]> {
  const byDay = new Map<string, CalendarVisit[]>();
  for (const visit of visits) byDay.set(visit.plannedDate, [...(byDay.get(visit.plannedDate) ?? []), visit]);
  return byDay;
}

/** The week and day views: one column per day, its events in order, 新增日程 on each day. */
function Agenda({
  days,
  byDay,
  visits,
  today,
  zone,
  onAdd,
  onOpen,
}: {
  days: string[];
  byDay: Map<string, CalendarEvent[]>;
  visits: Map<string, CalendarVisit[]>;
  today: string;
  zone: string;
  onAdd: (day: string) => void;
  onOpen: (e: CalendarEvent) => void;
}) {
  return (
    <div className="calendar-agenda" style={{ gridTemplateColumns: `repeat(${days.length}, minmax(0, 1fr))` }}>
      {days.map((day) => {
        const events = byDay.get(day) ?? [];
        const dayVisits = visits.get(day) ?? [];
        const d = dayjs(day);
        return (
          <section key={day} className={`calendar-agenda-day${day === today ? ' is-today' : ''}`} aria-label={day}>
            <header className="calendar-agenda-head">
              <span>
                {d.format('MM-DD')} {d.format('dd')}
              </span>
              <Button
                type="text"
                size="small"
                aria-label={`${C.add} ${day}`}
                icon={<PlusOutlined aria-hidden />}
                onClick={() => onAdd(day)}
              />
            </header>
            {events.length === 0 && dayVisits.length === 0 ? (
              <div className="calendar-agenda-empty">{C.noEvents}</div>
            ) : (
              <>
                {events.map((e) => (
                  <EventItem key={e.id} event={e} zone={zone} onOpen={onOpen} />
                ))}
                {dayVisits.map((v) => (
                  <VisitItem key={`v${v.followRecordId}`} visit={v} />
                ))}
              </>
            )}
          </section>
        );
      })}
    </div>
  );
}

/** 日历 (FOLLOW-03): the user's own events by month, week or day; a day is clicked to add one. */
export default function CalendarPage() {
  const { studyId, query } = useProjectStudy();
  const zone = displayTimeZone();
  const today = todayString(new Date(), zone);
  const [view, setView] = useState<CalendarView>('month');
  const [focus, setFocus] = useState<Dayjs>(() => dayjs(today));
  const [dialog, setDialog] = useState<EventDialogTarget>(null);

  const range = rangeOf(view, focus);
  const events = useQuery({
    queryKey: queryKeys.calendar.list(studyId ?? 0, range),
    enabled: studyId !== null,
    queryFn: () => eventsApi.list(studyId!, range).then((res) => res.data.list),
  });
  // The patients' follow-up visits planned in the range (the follow-up module); none when the user may not read them.
  const visits = useQuery({
    queryKey: queryKeys.calendar.visits(studyId, range),
    enabled: studyId !== null,
    queryFn: () => calendarVisitsApi.list(studyId!, range).then((res) => res.data.list),
    retry: false,
  });
  const visitDays = useMemo(() => visitsByDay(visits.data ?? []), [visits.data]);
  const days = useMemo(() => visibleDays(view, focus), [view, focus]);
  const byDay = useMemo(() => eventsByDay(events.data ?? [], days, zone), [events.data, days, zone]);

  if (studyId === null || query.isError) {
    return (
      <div className="page-card">
        <Result status="warning" title={MSG.forbidden} />
      </div>
    );
  }

  const openNew = (day: string) => setDialog({ kind: 'new', day });
  const openEvent = (event: CalendarEvent) => setDialog({ kind: 'edit', event });
  const heading =
    view === 'month'
      ? focus.format('YYYY年M月')
      : view === 'week'
        ? `${days[0]} ~ ${days[days.length - 1]}`
        : focus.format('YYYY-MM-DD dddd');

  return (
    <div className="page-card calendar-page">
      <div className="calendar-toolbar">
        <h2 className="page-title">{C.title}</h2>
        <div className="calendar-nav">
          <Button
            aria-label={C.prev}
            icon={<LeftOutlined aria-hidden />}
            onClick={() => setFocus(step(view, focus, -1))}
          />
          <Button onClick={() => setFocus(dayjs(today))}>{C.today}</Button>
          <Button
            aria-label={C.next}
            icon={<RightOutlined aria-hidden />}
            onClick={() => setFocus(step(view, focus, 1))}
          />
          <span className="calendar-heading" aria-live="polite">
            {heading}
          </span>
        </div>
        <Segmented<CalendarView>
          value={view}
          onChange={setView}
          options={[
            { value: 'month', label: C.month },
            { value: 'week', label: C.week },
            { value: 'day', label: C.day },
          ]}
        />
        <Button type="primary" icon={<PlusOutlined aria-hidden />} onClick={() => openNew(focus.format('YYYY-MM-DD'))}>
          {C.add}
        </Button>
      </div>
      <Spin spinning={events.isFetching && !events.data}>
        {view === 'month' ? (
          <Calendar
            className="calendar-month"
            value={focus}
            headerRender={() => null}
            onSelect={(date, info) => {
              setFocus(date);
              if (info.source === 'date') openNew(date.format('YYYY-MM-DD'));
            }}
            fullCellRender={(date, info) => {
              if (info.type !== 'date') return info.originNode;
              const day = date.format('YYYY-MM-DD');
              const list = byDay.get(day) ?? [];
              const dayVisits = visitDays.get(day) ?? [];
              const room = Math.max(0, MONTH_CELL_EVENTS - list.length);
              const hidden = Math.max(0, list.length - MONTH_CELL_EVENTS) + Math.max(0, dayVisits.length - room);
              return (
                <div
                  className={`calendar-cell${day === today ? ' is-today' : ''}${date.month() !== focus.month() ? ' is-other-month' : ''}`}
                  data-day={day}
                >
                  <div className="calendar-cell-date">{date.date()}</div>
                  <div className="calendar-cell-events">
                    {list.slice(0, MONTH_CELL_EVENTS).map((e) => (
                      <EventItem key={e.id} event={e} zone={zone} onOpen={openEvent} />
                    ))}
                    {dayVisits.slice(0, room).map((v) => (
                      <VisitItem key={`v${v.followRecordId}`} visit={v} />
                    ))}
                    {hidden > 0 && (
                      <button
                        type="button"
                        className="calendar-more"
                        onClick={(e) => {
                          e.stopPropagation();
                          setFocus(date);
                          setView('day');
                        }}
                      >
                        {C.more(hidden)}
                      </button>
                    )}
                  </div>
                </div>
              );
            }}
          />
        ) : (
          <Agenda
            days={days}
            byDay={byDay}
            visits={visitDays}
            today={today}
            zone={zone}
            onAdd={openNew}
            onOpen={openEvent}
          />
        )}
      </Spin>
      <EventDialog studyId={studyId} zone={zone} target={dialog} onClose={() => setDialog(null)} />
    </div>
  );
}
