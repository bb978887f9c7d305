import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api/request';
import {
  buildSaveBody,
  changedItemNames,
  classifySaveError,
  draftKey,
  isRetryable,
  issuesToErrors,
  makeDraft,
  needsReason,
  newRequestId,
  readDraft,
  reasonError,
  reviewDraft,
  sameValue,
  writeDraft,
  type DraftStorage,
} from './save-flow';

function memoryStorage(): DraftStorage & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    getItem: (key) => data.get(key) ?? null,
    setItem: (key, value) => void data.set(key, value),
    removeItem: (key) => void data.delete(key),
  };
}

describe('save flow: the request body', () => {
  it('CRF-23: a new record is sent as version 0 without an id; the requestId and reason go along', () => {
    expect(
      buildSaveBody({
        subjectRecordId: 7,
        crfId: 3,
        record: null,
        values: { sbp: '120' },
        submit: false,
        requestId: 'r1',
      }),
    ).toEqual({
      subjectRecordId: 7,
      crfId: 3,
      crfDataRecordId: null,
      version: 0,
      values: { sbp: '120' },
      submit: false,
      reason: null,
      requestId: 'r1',
    });
    const body = buildSaveBody({
      subjectRecordId: 7,
      crfId: 3,
      record: { id: 41, version: 5 },
      values: {},
      submit: true,
      reason: '  复测  ',
      requestId: 'r2',
    });
    expect(body).toMatchObject({ crfDataRecordId: 41, version: 5, submit: true, reason: '复测', requestId: 'r2' });
    expect(
      buildSaveBody({
        subjectRecordId: 7,
        crfId: 3,
        record: null,
        values: {},
        submit: false,
        reason: '   ',
        requestId: 'r3',
      }).reason,
    ).toBeNull();
  });

  it('CRF-23: every user action gets a fresh requestId', () => {
    const ids = new Set(Array.from({ length: 50 }, () => newRequestId()));
    expect(ids.size).toBe(50);
  });
});

describe('save flow: changes and reasons', () => {
  it('compares stored values as the server does: empty equals absent, 150 equals "150", rows by content', () => {
    expect(sameValue('', undefined)).toBe(true);
    expect(sameValue([], null)).toBe(true);
    expect(sameValue(150, '150')).toBe(true);
    expect(sameValue([{ a: '1' }], [{ a: '1' }])).toBe(true);
    expect(sameValue('1', '2')).toBe(false);
    expect(changedItemNames({ a: '1', b: '2', c: '' }, { a: '1', b: '3', d: 'x' })).toEqual(['b', 'd']);
  });

  it('CRF-27: a change to a submitted record needs a reason; an unchanged or unsubmitted one does not', () => {
    expect(needsReason({ state: 2 }, { sbp: '120' }, { sbp: '130' })).toBe(true);
    expect(needsReason({ state: 2 }, { sbp: '120' }, { sbp: '120' })).toBe(false);
    expect(needsReason({ state: 1 }, { sbp: '120' }, { sbp: '130' })).toBe(false);
    expect(needsReason(null, {}, { sbp: '130' })).toBe(false);
    expect(reasonError('')).toBe('请填写修改原因');
    expect(reasonError('   ')).toBe('请填写修改原因');
    expect(reasonError('复测血压')).toBeNull();
  });
});

describe('save flow: refusals', () => {
  it('CRF-28: 409 is a conflict carrying the record as it is now and the items that differ', () => {
    const current = {
      crfDataRecordId: 41,
      version: 6,
      values: { sbp: '135' },
      updatedBy: 2,
      updateTime: '2026-01-01T00:00:00Z',
    };
    const failure = classifySaveError(
      new ApiError(409, '数据已被他人修改，请刷新后重试', 409, { current, changedItems: ['sbp'] }),
    );
    expect(failure).toEqual({
      kind: 'stale',
      message: '数据已被他人修改，请刷新后重试',
      stale: { current, changedItems: ['sbp'] },
    });
  });

  it('CRF-28: 400 with item errors marks the items; 请将必填项填写完整 is told apart from 表单数据有误', () => {
    const issues = [{ itemName: 'sbp', groupName: null, groupIndex: null, message: '请输入数据' }];
    expect(classifySaveError(new ApiError(400, '请将必填项填写完整', 400, { errors: issues }))).toEqual({
      kind: 'invalid',
      message: '请将必填项填写完整',
      issues,
      missingOnly: true,
    });
    const invalid = classifySaveError(new ApiError(400, '表单数据有误', 400, { errors: issues }));
    expect(invalid).toMatchObject({ kind: 'invalid', missingOnly: false });
    expect(
      classifySaveError(new ApiError(400, '修改已提交的数据需要填写修改原因', 400, { changedItems: ['sbp'] })),
    ).toEqual({
      kind: 'reason',
      message: '修改已提交的数据需要填写修改原因',
      changedItems: ['sbp'],
    });
  });

  it('a lost answer is retried with the same requestId; a refusal is not', () => {
    expect(classifySaveError(new ApiError(0, '系统异常', null)).kind).toBe('network');
    expect(isRetryable(new ApiError(0, '系统异常', null))).toBe(true);
    expect(isRetryable(new ApiError(503, '系统异常', 503))).toBe(true);
    expect(isRetryable(new ApiError(400, '表单数据有误', 400))).toBe(false);
    expect(isRetryable(new ApiError(409, '冲突', 409))).toBe(false);
    expect(classifySaveError(new ApiError(403, '当前用户无操作权限，请联系管理员', 403))).toEqual({
      kind: 'failed',
      message: '当前用户无操作权限，请联系管理员',
    });
  });

  it('server messages land on their items, row cells as list[row].child', () => {
    expect(
      issuesToErrors([
        { itemName: 'sbp', groupName: null, groupIndex: null, message: '收缩压应大于舒张压' },
        { itemName: 'implant_name', groupName: 'implants', groupIndex: 1, message: '请输入数据' },
        { itemName: 'sbp', groupName: null, groupIndex: null, message: '收缩压应大于舒张压' },
      ]),
    ).toEqual({ sbp: ['收缩压应大于舒张压'], 'implants[1].implant_name': ['请输入数据'] });
  });
});

describe('save flow: drafts keep unsaved values', () => {
  it('a draft holds only the changed items, with the value each started from', () => {
    const draft = makeDraft(
      { sbp: '120', dbp: '80' },
      { sbp: '130', dbp: '80', hr: '70' },
      4,
      new Date('2026-01-01T08:00:00Z'),
    );
    expect(draft).toEqual({
      baseVersion: 4,
      savedAt: '2026-01-01T08:00:00.000Z',
      changes: { sbp: { from: '120', to: '130' }, hr: { from: null, to: '70' } },
    });
    expect(makeDraft({ sbp: '120' }, { sbp: '120' }, 4)).toBeNull();
  });

  it('one key per user, casebook, form and record; written, read back and cleared', () => {
    const storage = memoryStorage();
    const key = draftKey(null, 7, 3, null);
    expect(key).toBe('ecrf.crfDraft:anon:7:3:new');
    expect(draftKey(12, 7, 3, 41)).toBe('ecrf.crfDraft:12:7:3:41');
    const draft = makeDraft({}, { sbp: '130' }, 0)!;
    writeDraft(storage, key, draft);
    expect(readDraft(storage, key)).toEqual(draft);
    writeDraft(storage, key, null);
    expect(readDraft(storage, key)).toBeNull();
    storage.setItem(key, '{broken');
    expect(readDraft(storage, key)).toBeNull();
  });

  it('a full storage does not stop the typing', () => {
    const storage: DraftStorage = {
      getItem: () => null,
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
      removeItem: () => undefined,
    };
    expect(() => writeDraft(storage, 'k', makeDraft({}, { a: '1' }, 0))).not.toThrow();
  });

  it('restoring applies the draft onto the record as it is now, drops what was saved, and names what others changed since', () => {
    const draft = makeDraft({ sbp: '120', dbp: '80', hr: '70' }, { sbp: '130', dbp: '85', hr: '75' }, 4)!;
    // Since then: dbp was saved as the draft has it; someone else changed hr.
    const review = reviewDraft(draft, { sbp: '120', dbp: '85', hr: '90', temp: '36.5' });
    expect(review.items).toEqual(['sbp', 'hr']);
    expect(review.conflicts).toEqual(['hr']);
    expect(review.values).toEqual({ sbp: '130', dbp: '85', hr: '75', temp: '36.5' });
  });
});
