import { describe, expect, it } from 'vitest';
import { migrationResultOf } from '../../../api/amendment.api';
import type { CrfPlannedForm, CrfRow } from '../../../api/study.api';
import {
  draftUploadCheck,
  impactHref,
  impactTargetOf,
  isProductionStudy,
  splitForDrafts,
  valueText,
  withDrafts,
} from './amendment-state';

const row = (id: number, extra: object = {}) => ({ id, title: `表${id}`, version: 1, ...extra }) as unknown as CrfRow;
const planned = (title: string, crfId?: number): CrfPlannedForm => ({
  title,
  action: crfId ? 'version' : 'create',
  storedTitle: title,
  version: 2,
  ...(crfId ? { existing: { crfId, currentVersion: 1, hasData: true } } : {}),
});

describe('CRF drafts and amendments (web rules)', () => {
  it('only a study in production edits through drafts; a study without mode behaves as in 测试', () => {
    expect(isProductionStudy({ mode: 'production' })).toBe(true);
    expect(isProductionStudy({ mode: 'test' })).toBe(false);
    expect(isProductionStudy({})).toBe(false);
    expect(isProductionStudy(null)).toBe(false);
  });

  it('the report’s address names a draft (studyId, crfId) or an amendment (studyId, amendmentId), and back', () => {
    const draft = { studyId: 5, crfId: 9 };
    const amendment = { studyId: 5, amendmentId: 77 };
    expect(impactHref(draft)).toBe('/study/amendment/impact?studyId=5&crfId=9');
    expect(impactHref(draft, { publish: true })).toBe('/study/amendment/impact?studyId=5&crfId=9&publish=1');
    expect(impactHref(amendment)).toBe('/study/amendment/impact?studyId=5&amendmentId=77');
    expect(impactTargetOf(new URLSearchParams('studyId=5&crfId=9'))).toEqual(draft);
    expect(impactTargetOf(new URLSearchParams('studyId=5&amendmentId=77&crfId=9'))).toEqual(amendment);
    expect(impactTargetOf(new URLSearchParams('crfId=9'))).toBeNull();
    expect(impactTargetOf(new URLSearchParams('studyId=5'))).toBeNull();
  });

  it('an upload into a draft must hold exactly the next version of that CRF', () => {
    const crf = { id: 9, title: '生命体征' };
    expect(draftUploadCheck([planned('生命体征', 9)], crf)).toEqual({ ok: true, title: '生命体征' });
    expect(draftUploadCheck([planned('实验室检查', 10)], crf)).toEqual({
      ok: false,
      message: '文件中的表单“实验室检查”与CRF“生命体征”不同名，请上传该CRF的新版本',
    });
    expect(draftUploadCheck([planned('新表')], crf).ok).toBe(false);
    expect(draftUploadCheck([planned('生命体征', 9), planned('新表')], crf)).toEqual({
      ok: false,
      message: '上传到草稿时，文件中只能有一个表单',
    });
  });

  it('a production study’s toolbar upload: new versions go into drafts, new CRFs are created, a mixed file is refused', () => {
    const file = (name: string) => new File(['{}'], name);
    const [a, b, c, d] = [file('a.json'), file('b.json'), file('c.xlsx'), file('d.xlsx')];
    const split = splitForDrafts(
      [
        { file: a, plan: [planned('生命体征', 9)] },
        { file: b, plan: [planned('新表')] },
        { file: c, plan: [planned('生命体征', 9), planned('新表')] },
        { file: d, plan: [planned('实验室检查', 10)] },
      ],
      { 生命体征: 'version', 实验室检查: 'new' },
    );
    expect(split.draft).toEqual([a]);
    expect(split.publish).toEqual([b, d]);
    expect(split.refused.map((o) => [o.fileName, o.ok])).toEqual([['c.xlsx', false]]);
  });

  it('rows carry their drafts: the list’s own field when it has one, else the draft read per row', async () => {
    const draft = { version: 2, itemCount: 4, createdAt: '2026-01-05 10:00:00', createdByName: '管理员' };
    const read = async (crfId: number) => (crfId === 1 ? draft : null);
    const rows = await withDrafts([row(1), row(2), row(3, { draft: null })], read);
    expect(rows.map((r) => r.draft)).toEqual([draft, null, null]);
  });

  it('values read as text, a migration job’s result as its counts', () => {
    expect([valueText(null), valueText(''), valueText([]), valueText(['a', 'b']), valueText(3)]).toEqual([
      '（空）',
      '（空）',
      '（空）',
      'a、b',
      '3',
    ]);
    expect(migrationResultOf({ result: { moved: 10, changed: 3, skippedLocked: 1, failed: 0 } })).toEqual({
      moved: 10,
      changed: 3,
      skippedLocked: 1,
      failed: 0,
    });
    expect(migrationResultOf({ result: null })).toBeNull();
  });
});
