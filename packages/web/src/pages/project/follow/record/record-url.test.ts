import { describe, expect, it } from 'vitest';
import { recordsLink, searchValuesOf } from './record-url';

describe('随访记录 opened filtered from 随访概览', () => {
  it('FOLLOW-02: a count’s link carries its filter and the list’s search form starts with it', () => {
    const url = recordsLink(5, { state: 2, responsibleUserId: 7 });
    expect(url).toBe('/project/5/follow/record?state=2&responsibleUserId=7');
    expect(searchValuesOf(url.slice(url.indexOf('?')))).toEqual({ state: 2, responsibleUserId: 7 });
    const week = recordsLink(5, { startDate: '2026-11-23', endDate: '2026-11-29' });
    const values = searchValuesOf(week.slice(week.indexOf('?')));
    const [from, to] = values.dateRange as [{ format: (f: string) => string }, { format: (f: string) => string }];
    expect([from.format('YYYY-MM-DD'), to.format('YYYY-MM-DD')]).toEqual(['2026-11-23', '2026-11-29']);
    expect(recordsLink(5, {})).toBe('/project/5/follow/record');
  });

  it('an address typed by hand with values the list does not know is read as no filter', () => {
    expect(searchValuesOf('?state=42&responsibleUserId=-1&startDate=2026-13-40')).toEqual({});
  });
});
