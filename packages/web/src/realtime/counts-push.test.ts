import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { queryKeys } from '../api/query-keys';
import { applyCountsPush } from './realtime-bridge';

describe('a counts push (personsignalhub)', () => {
  it('SHELL-22: a pushed follow count replaces the top bar’s for that study only and makes the follow-up pages read again', () => {
    const client = new QueryClient();
    client.setQueryData(queryKeys.calendar.visitCount(5), 4);
    client.setQueryData(queryKeys.calendar.visitCount(6), 9);
    client.setQueryData(queryKeys.follow.overview(5), { due: 4 });
    client.setQueryData([...queryKeys.follow.records(5), { pageNum: 1 }], { list: [] });
    client.setQueryData(queryKeys.doubt.count(5), 2);

    applyCountsPush(client, { studyId: 5, visits: 3 });

    expect(client.getQueryData(queryKeys.calendar.visitCount(5))).toBe(3);
    expect(client.getQueryData(queryKeys.calendar.visitCount(6))).toBe(9);
    expect(client.getQueryState(queryKeys.follow.overview(5))?.isInvalidated).toBe(true);
    expect(client.getQueryState([...queryKeys.follow.records(5), { pageNum: 1 }])?.isInvalidated).toBe(true);
    // The queries' count is not part of this push and stays as it was.
    expect(client.getQueryData(queryKeys.doubt.count(5))).toBe(2);
  });

  it('SHELL-22: a push without a follow count leaves the follow-up pages alone', () => {
    const client = new QueryClient();
    client.setQueryData(queryKeys.follow.overview(5), { due: 4 });
    applyCountsPush(client, { studyId: 5, events: 1 });
    expect(client.getQueryState(queryKeys.follow.overview(5))?.isInvalidated).toBe(false);
  });

  it('issue 37: a pushed SAE count replaces the top bar’s for that study only and makes 不良事件 read again', () => {
    const client = new QueryClient();
    client.setQueryData(queryKeys.safety.count(5), 0);
    client.setQueryData(queryKeys.safety.count(6), 4);
    client.setQueryData([...queryKeys.safety.list(5), {}, { pageNum: 1 }], { list: [] });
    client.setQueryData(queryKeys.doubt.count(5), 2);

    applyCountsPush(client, { studyId: 5, saes: 1 });

    expect(client.getQueryData(queryKeys.safety.count(5))).toBe(1);
    expect(client.getQueryData(queryKeys.safety.count(6))).toBe(4);
    expect(client.getQueryState([...queryKeys.safety.list(5), {}, { pageNum: 1 }])?.isInvalidated).toBe(true);
    expect(client.getQueryData(queryKeys.doubt.count(5))).toBe(2);
  });
});
