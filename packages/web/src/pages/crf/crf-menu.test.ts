import { describe, expect, it } from 'vitest';
import type { CrfMenuNode } from '../../api/crf.api';
import { findForm, formStateMeta, initialForm, isRepeatable, menuButtons, menuForms, stageKeys } from './crf-menu';

const formNode = (crfId: number, title: string, extra: Partial<CrfMenuNode> = {}): CrfMenuNode => ({
  id: `crf-${crfId}`,
  title,
  type: 1,
  crfId,
  repeat: 1,
  state: 0,
  count: 0,
  childrens: [],
  btns: [],
  ...extra,
});

const stage = (id: number, title: string, childrens: CrfMenuNode[]): CrfMenuNode => ({
  id: `stage-${id}`,
  title,
  type: 0,
  childrens,
  btns: [],
});

const MENU: CrfMenuNode[] = [
  stage(1, '基线', [formNode(11, '人口学资料', { state: 2 }), formNode(12, '生命体征', { state: 9 })]),
  stage(2, '手术', [stage(3, '术中', [formNode(13, '手术记录', { state: 1 })])]),
  stage(4, '术后随访', [
    formNode(14, '术后随访', { repeat: 0, count: 2, btns: [{ code: 'study.iconBtn.doubt', title: '质疑按钮' }] }),
  ]),
];

describe('CRF menu', () => {
  it('CRF-08: the state codes 0 未开始, 1 未完成, 2 已提交, 9 存在质疑, each with a tooltip', () => {
    expect([0, 1, 2, 9].map((code) => formStateMeta(code).label)).toEqual(['未开始', '未完成', '已提交', '存在质疑']);
    for (const code of [0, 1, 2, 9]) expect(formStateMeta(code).tip).toContain(formStateMeta(code).label);
    expect(formStateMeta(undefined).code).toBe(0);
    expect(formStateMeta(5).code).toBe(0);
  });

  it('CRF-12: the form named by crfId is chosen on entry, otherwise the first form of the tree', () => {
    expect(initialForm(MENU, 13)?.title).toBe('手术记录');
    expect(initialForm(MENU, null)?.title).toBe('人口学资料');
    // A crfId the menu does not offer (another study's, or not viewable) falls back to the first.
    expect(initialForm(MENU, 99)?.title).toBe('人口学资料');
    expect(initialForm([], 13)).toBeNull();
    expect(findForm(MENU, 99)).toBeNull();
  });

  it('CRF-13/CRF-14: forms come in tree order through nested stages; repeat 1 is single, anything else repeatable', () => {
    expect(menuForms(MENU).map((f) => f.crfId)).toEqual([11, 12, 13, 14]);
    expect(isRepeatable(findForm(MENU, 14)!)).toBe(true);
    expect(isRepeatable(findForm(MENU, 11)!)).toBe(false);
    expect(isRepeatable({ repeat: undefined })).toBe(true);
    expect(stageKeys(MENU)).toEqual(['stage-1', 'stage-2', 'stage-3', 'stage-4']);
  });

  it('VIS-10: the study buttons come from the menu nodes', () => {
    expect(menuButtons(MENU)).toEqual(['study.iconBtn.doubt']);
  });
});
