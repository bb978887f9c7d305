import { describe, expect, it } from 'vitest';
import { queryKeys } from './query-keys';

type Factory = (...args: unknown[]) => readonly unknown[];

const startsWith = (key: readonly unknown[], prefix: readonly unknown[]) =>
  prefix.length <= key.length && prefix.every((part, i) => JSON.stringify(part) === JSON.stringify(key[i]));

/** Every factory of every area, called with sample arguments (one per declared parameter). */
function everyKey() {
  return Object.entries(queryKeys).flatMap(([area, factories]) =>
    Object.entries(factories as Record<string, Factory>).map(([name, factory]) => ({
      area,
      name,
      key: factory(...Array.from({ length: factory.length }, (_, i) => i + 7)),
    })),
  );
}

describe('query keys', () => {
  it('every key of an area starts with the area’s first key, and areas do not share a first segment', () => {
    const firsts = new Map<string, string>();
    for (const { area, name, key } of everyKey()) {
      const factories = queryKeys[area as keyof typeof queryKeys] as Record<string, Factory>;
      const root = 'all' in factories ? factories.all!() : null;
      if (root) expect(startsWith(key, root), `${area}.${name}`).toBe(true);
      const first = String(key[0]);
      expect(firsts.get(first) ?? area, `${area}.${name} reuses ${first}`).toBe(area);
      firsts.set(first, area);
    }
  });

  it('the prefixes the pages invalidate by contain the keys they mean to refresh', () => {
    const nests: Array<[readonly unknown[], readonly unknown[]]> = [
      [queryKeys.user.list(), queryKeys.user.all()],
      [queryKeys.user.detail(3), queryKeys.user.all()],
      [queryKeys.role.options(), queryKeys.role.all()],
      [queryKeys.dept.list({ status: 0 }), queryKeys.dept.lists()],
      [queryKeys.menu.list({}), queryKeys.menu.lists()],
      [queryKeys.menu.roleTree(2), queryKeys.menu.roleTrees()],
      [queryKeys.menu.roleTree(undefined), queryKeys.menu.roleTrees()],
      [queryKeys.study.openList('脊柱', { pageNum: 1 }), queryKeys.study.openLists()],
      [queryKeys.study.detail(5), queryKeys.study.details()],
      [queryKeys.study.manage(), queryKeys.study.all()],
      [queryKeys.study.mine(), queryKeys.study.all()],
      [queryKeys.studyRole.tree(5), queryKeys.studyRole.trees()],
      [queryKeys.crf.detail(9), queryKeys.crf.details()],
      [queryKeys.crf.detail(9, 2), queryKeys.crf.details()],
      [queryKeys.subjectRecord.list(5), queryKeys.subjectRecord.lists()],
      [queryKeys.doubt.list(5), queryKeys.doubt.lists()],
      [queryKeys.doubt.count(5), queryKeys.doubt.counts()],
    ];
    for (const [key, prefix] of nests) expect(startsWith(key, prefix), JSON.stringify(key)).toBe(true);
  });

  it('keeps the shapes the pages outside the factory still write inline (the CRF page shares the cache)', () => {
    expect(queryKeys.crf.detail(9)).toEqual(['crf', 'detail', 9, 'latest']);
    expect(queryKeys.crf.detail(9, 2)).toEqual(['crf', 'detail', 9, 2]);
    expect(queryKeys.doubt.count(5)).toEqual(['doubt', 'count', 5]);
    expect(queryKeys.doubt.detail(4)).toEqual(['doubt', 'detail', 4]);
    expect(queryKeys.account.routers()).toEqual(['routers']);
    expect(queryKeys.account.info()).toEqual(['userInfo']);
    expect(queryKeys.account.captcha()).toEqual(['captcha']);
  });

  it('a key of one study never starts with a key of another', () => {
    expect(startsWith(queryKeys.subjectRecord.list(12), queryKeys.subjectRecord.list(1))).toBe(false);
    expect(startsWith(queryKeys.doubt.list(12), queryKeys.doubt.list(1))).toBe(false);
  });
});
