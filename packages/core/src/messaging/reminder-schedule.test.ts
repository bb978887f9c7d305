import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MESSAGE_RULES, type MessageRules } from '../messaging-contract.js';
import { addDays } from '../follow/schedule.js';
import { dueMessages, visitWindowText, type DueMessage, type ScheduleVisit } from './reminder-schedule.js';

const rules: MessageRules = { ...DEFAULT_MESSAGE_RULES, enabled: true, daysBefore: 3, remindAgainDays: 3 };

/** Planned 2026-03-10, window 2026-03-07 至 2026-03-15. */
const visit: ScheduleVisit = {
  followRecordId: 7,
  subjectId: 70,
  visitName: '第1次随访',
  plannedDate: '2026-03-10',
  windowBefore: 3,
  windowAfter: 5,
  closed: false,
  proForms: [
    { crfId: 11, formName: '生活质量问卷', answered: false },
    { crfId: 12, formName: '疼痛评分', answered: true },
  ],
};

const none = new Map<string, string>();
const run = (today: string, over: Partial<MessageRules> = {}, recorded = none, visits = [visit]) =>
  dueMessages({ rules: { ...rules, ...over }, today, visits, recorded });
const keys = (ms: DueMessage[]) => ms.map((m) => m.dedupeKey);

describe('messages: which reminders are due', () => {
  it('window text is 开始 至 结束 from the planned date and the window days', () => {
    expect(visitWindowText(visit)).toBe('2026-03-07 至 2026-03-15');
  });

  it('nothing when the rules are off or the visit is closed', () => {
    expect(run('2026-03-07', { enabled: false })).toEqual([]);
    expect(run('2026-03-07', {}, none, [{ ...visit, closed: true }])).toEqual([]);
    expect(run('2026-03-20', {}, none, [{ ...visit, closed: true }])).toEqual([]);
  });

  it('visit_before: daysBefore days before the window opens, or later, never once it is open', () => {
    expect(run('2026-03-03')).toEqual([]);
    const due = run('2026-03-04');
    expect(due).toEqual([
      {
        kind: 'visit_before',
        subjectId: 70,
        followRecordId: 7,
        crfId: null,
        dedupeKey: 'visit_before:7',
        vars: { visit: '第1次随访', window: '2026-03-07 至 2026-03-15' },
      },
    ]);
    // A scheduler that missed the day still sends once.
    expect(keys(run('2026-03-06'))).toEqual(['visit_before:7']);
    expect(run('2026-03-06', {}, new Map([['visit_before:7', '2026-03-04']]))).toEqual([]);
    expect(keys(run('2026-03-07'))).not.toContain('visit_before:7');
    expect(run('2026-03-04', { daysBefore: null })).toEqual([]);
  });

  it('visit_first_day: once inside the window, even when the first run is on day 3', () => {
    expect(keys(run('2026-03-07'))).toEqual(['visit_first_day:7', 'pro_invite:7:11']);
    expect(keys(run('2026-03-09'))).toContain('visit_first_day:7');
    expect(keys(run('2026-03-15'))).toContain('visit_first_day:7');
    expect(keys(run('2026-03-16'))).not.toContain('visit_first_day:7');
    expect(keys(run('2026-03-09', {}, new Map([['visit_first_day:7', '2026-03-07']])))).not.toContain(
      'visit_first_day:7',
    );
    expect(keys(run('2026-03-09', { remindFirstDay: false }))).not.toContain('visit_first_day:7');
  });

  it('visit_overdue: after the window closes, once, only when asked for', () => {
    expect(keys(run('2026-03-15'))).not.toContain('visit_overdue:7');
    expect(keys(run('2026-03-16'))).toContain('visit_overdue:7');
    expect(keys(run('2026-04-30'))).toContain('visit_overdue:7');
    expect(keys(run('2026-03-17', {}, new Map([['visit_overdue:7', '2026-03-16']])))).not.toContain('visit_overdue:7');
    expect(keys(run('2026-03-16', { remindOverdue: false }))).not.toContain('visit_overdue:7');
  });

  it('pro_invite: each unanswered questionnaire once the window is open or past', () => {
    expect(keys(run('2026-03-06'))).not.toContain('pro_invite:7:11');
    const invite = run('2026-03-07').find((m) => m.kind === 'pro_invite');
    expect(invite).toEqual({
      kind: 'pro_invite',
      subjectId: 70,
      followRecordId: 7,
      crfId: 11,
      dedupeKey: 'pro_invite:7:11',
      vars: { visit: '第1次随访', window: '2026-03-07 至 2026-03-15', form: '生活质量问卷' },
    });
    expect(keys(run('2026-03-20'))).toContain('pro_invite:7:11');
    expect(keys(run('2026-03-07'))).not.toContain('pro_invite:7:12');
    expect(keys(run('2026-03-07', { invitePro: false }))).toEqual(['visit_first_day:7']);
  });

  it('pro_remind: once, remindAgainDays after the invitation, while still unanswered', () => {
    const invited = new Map([['pro_invite:7:11', '2026-03-07']]);
    expect(keys(run('2026-03-09', {}, invited))).not.toContain('pro_remind:7:11');
    expect(keys(run('2026-03-10', {}, invited))).toContain('pro_remind:7:11');
    expect(keys(run('2026-03-12', {}, invited))).toContain('pro_remind:7:11');
    const reminded = new Map([...invited, ['pro_remind:7:11', '2026-03-10']]);
    expect(keys(run('2026-03-12', {}, reminded))).not.toContain('pro_remind:7:11');
    expect(keys(run('2026-03-12', { remindAgainDays: null }, invited))).not.toContain('pro_remind:7:11');
    const answered = [{ ...visit, proForms: [{ crfId: 11, formName: '生活质量问卷', answered: true }] }];
    expect(keys(run('2026-03-12', {}, invited, answered))).not.toContain('pro_remind:7:11');
  });

  it('a visit with a broken planned date is passed over, not fatal', () => {
    const broken = { ...visit, followRecordId: 8, plannedDate: '2026-02-30' };
    expect(keys(run('2026-03-07', {}, none, [broken, visit]))).toEqual(['visit_first_day:7', 'pro_invite:7:11']);
  });
});

const dateArb = fc
  .date({ min: new Date(Date.UTC(2024, 0, 1)), max: new Date(Date.UTC(2027, 11, 31)), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

const rulesArb: fc.Arbitrary<MessageRules> = fc.record({
  enabled: fc.boolean(),
  channel: fc.constantFrom('sms' as const, 'wechat' as const),
  daysBefore: fc.option(fc.integer({ min: 1, max: 60 }), { nil: null }),
  remindFirstDay: fc.boolean(),
  remindOverdue: fc.boolean(),
  invitePro: fc.boolean(),
  remindAgainDays: fc.option(fc.integer({ min: 1, max: 60 }), { nil: null }),
  quietStart: fc.constant('21:00'),
  quietEnd: fc.constant('08:00'),
  templates: fc.constant({}),
});

const visitArb = (today: string) =>
  fc.record({
    followRecordId: fc.integer({ min: 1, max: 6 }),
    subjectId: fc.integer({ min: 1, max: 3 }),
    visitName: fc.constantFrom('基线', '第1次随访', '第2次随访'),
    plannedDate: fc.integer({ min: -90, max: 90 }).map((d) => addDays(today, d)),
    windowBefore: fc.integer({ min: 0, max: 14 }),
    windowAfter: fc.integer({ min: 0, max: 14 }),
    closed: fc.boolean(),
    proForms: fc.array(
      fc.record({
        crfId: fc.integer({ min: 1, max: 4 }),
        formName: fc.constantFrom('问卷A', '问卷B'),
        answered: fc.boolean(),
      }),
      { maxLength: 3 },
    ),
  });

const caseArb = dateArb.chain((today) =>
  fc.record({
    today: fc.constant(today),
    rules: rulesArb,
    visits: fc.array(visitArb(today), { maxLength: 6 }),
    recorded: fc
      .array(
        fc.tuple(
          fc.constantFrom('visit_before', 'visit_first_day', 'visit_overdue', 'pro_invite', 'pro_remind'),
          fc.integer({ min: 1, max: 6 }),
          fc.integer({ min: 1, max: 4 }),
          fc.integer({ min: 0, max: 30 }),
        ),
        { maxLength: 8 },
      )
      .map(
        (rows) =>
          new Map(
            rows.map(([kind, id, crf, ago]) => [
              kind.startsWith('pro_') ? `${kind}:${id}:${crf}` : `${kind}:${id}`,
              addDays(today, -ago),
            ]),
          ),
      ),
  }),
);

describe('messages: due reminders (properties)', () => {
  it('never a recorded key, never the same key twice, nothing new when run again with its own output recorded', () => {
    fc.assert(
      fc.property(caseArb, ({ today, rules: r, visits, recorded }) => {
        const due = dueMessages({ rules: r, today, visits, recorded });
        const dueKeys = keys(due);
        expect(dueKeys.filter((k) => recorded.has(k))).toEqual([]);
        expect(new Set(dueKeys).size).toBe(dueKeys.length);
        const after = new Map([...recorded, ...dueKeys.map((k) => [k, today] as const)]);
        expect(dueMessages({ rules: r, today, visits, recorded: after })).toEqual([]);
      }),
    );
  });

  it('closed visits and disabled rules never get a message; every message belongs to an open visit (property)', () => {
    fc.assert(
      fc.property(caseArb, ({ today, rules: r, visits, recorded }) => {
        const due = dueMessages({ rules: r, today, visits, recorded });
        if (!r.enabled) expect(due).toEqual([]);
        for (const m of due) {
          const owners = visits.filter((v) => v.followRecordId === m.followRecordId && !v.closed);
          expect(owners.length).toBeGreaterThan(0);
        }
      }),
    );
  });

  it('a scheduler run every day sends each key at most once over a visit’s life (property)', () => {
    fc.assert(
      fc.property(rulesArb, dateArb, visitArb('2026-01-01'), (r, start, v) => {
        const recorded = new Map<string, string>();
        const seen: string[] = [];
        for (let day = 0; day < 200; day += 1) {
          const today = addDays(start, day);
          for (const m of dueMessages({ rules: r, today, visits: [v], recorded })) {
            seen.push(m.dedupeKey);
            recorded.set(m.dedupeKey, today);
          }
        }
        expect(new Set(seen).size).toBe(seen.length);
      }),
      { numRuns: 30 },
    );
  });
});
