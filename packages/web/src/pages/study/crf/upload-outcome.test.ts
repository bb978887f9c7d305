import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../api/request';
import { fileNameFromDisposition } from '../../../utils/download';
import {
  allChosen,
  needsDialog,
  outcomeOfFailure,
  outcomeOfSingle,
  outcomesOfMulti,
  titlesToChoose,
} from './upload-outcome';

describe('CRF upload outcomes', () => {
  it('STUDY-17: a refused single file carries the linter errors of data.errors', () => {
    const error = new ApiError(400, 'CRF定义有误，未导入', 400, {
      errors: [{ path: 'demographics.age', message: '计算表达式引用了不存在的题目 dob2' }],
    });
    const outcome = outcomeOfFailure('dictionary.csv', error);
    expect(outcome).toMatchObject({ fileName: 'dictionary.csv', ok: false, message: 'CRF定义有误，未导入' });
    expect(outcome.errors).toEqual([{ path: 'demographics.age', message: '计算表达式引用了不存在的题目 dob2' }]);
    expect(needsDialog([outcome])).toBe(true);
  });

  it('a refusal without a list (no permission) keeps its message', () => {
    const outcome = outcomeOfFailure('a.json', new ApiError(403, '当前用户无操作权限，请联系管理员', 403));
    expect(outcome.errors).toEqual([]);
    expect(outcome.message).toBe('当前用户无操作权限，请联系管理员');
  });

  it('an accepted file with nothing to read needs no dialog; warnings or notes do', () => {
    const clean = outcomeOfSingle('a.json', {
      code: 200,
      msg: '上传成功',
      data: { crfs: [{ id: 1, title: '基线', version: 2 }], warnings: [], notes: [] },
    });
    expect(clean.crfs).toEqual([{ id: 1, title: '基线', version: 2 }]);
    expect(needsDialog([clean])).toBe(false);
    const warned = outcomeOfSingle('b.csv', {
      code: 200,
      msg: '上传成功',
      data: { crfs: [], warnings: [{ path: 'x', message: '未转换的分支逻辑' }], notes: [] },
    });
    expect(needsDialog([warned])).toBe(true);
  });

  it('several files: each judged on its own', () => {
    const outcomes = outcomesOfMulti([
      { fileName: 'a.xlsx', ok: true, crfs: [{ id: 1, title: '基线', version: 1 }] },
      { fileName: 'b.xml', ok: false, errors: [{ path: '', message: '不是有效的 ODM' }] },
    ]);
    expect(outcomes.map((o) => [o.fileName, o.ok, o.errors.length])).toEqual([
      ['a.xlsx', true, 0],
      ['b.xml', false, 1],
    ]);
  });

  it('STUDY-17: a checked upload asks for a choice on each title the study has, once per title', () => {
    const file = (name: string) => new File(['{}'], name);
    const files = [
      {
        file: file('a.json'),
        plan: [
          {
            title: '基线',
            action: 'version' as const,
            storedTitle: '基线',
            version: 3,
            existing: { crfId: 1, currentVersion: 2, hasData: true },
          },
          { title: '新表', action: 'create' as const, storedTitle: '新表', version: 1 },
        ],
      },
      {
        file: file('b.json'),
        plan: [
          {
            title: '基线',
            action: 'version' as const,
            storedTitle: '基线',
            version: 3,
            existing: { crfId: 1, currentVersion: 2, hasData: true },
          },
        ],
      },
    ];
    expect(titlesToChoose(files)).toEqual(['基线']);
    expect(allChosen(files, {})).toBe(false);
    expect(allChosen(files, { 基线: 'new' })).toBe(true);
    expect(titlesToChoose([{ file: file('c.json'), plan: [files[0]!.plan[1]!] }])).toEqual([]);
  });

  it('downloads take the UTF-8 file name the server announces', () => {
    expect(
      fileNameFromDisposition(`attachment; filename*=UTF-8''${encodeURIComponent('基线访视-v2.json')}`, 'x.json'),
    ).toBe('基线访视-v2.json');
    expect(fileNameFromDisposition('attachment; filename="crf.xml"', 'x.xml')).toBe('crf.xml');
    expect(fileNameFromDisposition(undefined, 'CRF模板.xlsx')).toBe('CRF模板.xlsx');
  });
});
