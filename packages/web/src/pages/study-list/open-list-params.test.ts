import { describe, expect, it } from 'vitest';
import { openListParams } from './open-list-params';

describe('open study list paging', () => {
  it('STUDY-08: the first page asks for pageNum 1 without a page size', () => {
    expect(openListParams({ pageNum: 1, pageSize: 10 }, '')).toEqual({ pageNum: 1 });
  });

  it('a chosen page size and a search are sent', () => {
    expect(openListParams({ pageNum: 2, pageSize: 20 }, ' 脊柱 ')).toEqual({
      pageNum: 2,
      pageSize: 20,
      studyName: '脊柱',
    });
  });
});
