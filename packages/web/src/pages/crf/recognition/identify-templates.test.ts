import { describe, expect, it } from 'vitest';
import type { CrfDefinition, CrfNode } from '@ecrf/core';
import { afterEdit, fillFromAnswer, identifyTemplates } from './identify-templates';

const item = (
  name: string,
  title: string,
  type: CrfNode['type'] = 'real',
  option: CrfNode['option'] = {},
): CrfNode => ({
  id: name,
  name,
  title,
  type,
  option,
  children: [],
});
const section = (name: string, title: string, option: Record<string, unknown>, children: CrfNode[]): CrfNode => ({
  id: name,
  name,
  title,
  type: 'section',
  option,
  children,
});

const definition = (children: CrfNode[], option: Record<string, unknown> = {}) =>
  ({ option, children }) as unknown as CrfDefinition;

describe('recognition templates and filling', () => {
  it('RECOG-02: the form offers its identify type, and each part that carries one (RECOG-04: several to choose from)', () => {
    const blood = section('s1', '血常规', { identifyType: 2, identifyIndex: 0, identifyId: 5 }, [
      item('wbc', '白细胞计数'),
    ]);
    const chem = section('s2', '生化', { identifyType: '3', identifyIndex: '1' }, [item('alt', '谷丙转氨酶')]);
    const none = identifyTemplates(definition([item('a', 'A')]), {}, '表单');
    expect(none).toEqual([]);
    const one = identifyTemplates(definition([item('a', 'A')]), { identifyType: 1, identifyIndex: 0 }, '血常规表');
    expect(one.map((t) => [t.label, t.type, t.index])).toEqual([['血常规表', 1, 0]]);
    const several = identifyTemplates(definition([blood, chem]), {}, '实验室检查');
    expect(several.map((t) => [t.label, t.type, t.index, t.identifyId])).toEqual([
      ['血常规', 2, 0, 5],
      ['生化', 3, 1, null],
    ]);
    expect(several[0]!.scope).toBe(blood.children);
  });

  it('RECOG-09: type 1 reads the data set from data.data.ret and fills the matching items', () => {
    const [template] = identifyTemplates(
      definition([item('wbc', '白细胞计数'), item('hgb', '血红蛋白', 'int'), item('note', '备注', 'input')]),
      { identifyType: 1 },
      '血常规',
    );
    const fill = fillFromAnswer(template!, {
      data: {
        ret: [
          { word_name: '白细胞计数', word: '6.52', unit: '10^9/L', referenceRange: '', flag: '', probability: 0.9 },
          { word_name: '血红蛋白', word: '98', unit: 'g/L', referenceRange: '', flag: '↓', probability: 0.9 },
          { word_name: '尿酸', word: '300', unit: '', referenceRange: '', flag: '', probability: 0.9 },
        ],
      },
      fileKey: 'k',
      recognitionId: 1,
    });
    expect(fill.values).toEqual({ wbc: '6.52', hgb: '98' });
    expect(fill.unmatched).toEqual(['尿酸']);
  });

  it('RECOG-10: other types read data.items; a leading * is stripped and a repeated name gets its code appended', () => {
    const [template] = identifyTemplates(
      definition([item('wbc', '白细胞'), item('leu', '白细胞LEU', 'input')]),
      { identifyType: 2 },
      '检验',
    );
    const fill = fillFromAnswer(template!, {
      items: [
        { projectName: '*白细胞', projectCode: 'WBC', result: '6.5', unit: '', referenceRange: '', flag: '' },
        { projectName: '白细胞', projectCode: 'LEU', result: '阴性', unit: '', referenceRange: '', flag: '' },
      ],
    });
    expect(fill.values).toEqual({ wbc: '6.5', leu: '阴性' });
  });

  it('RECOG-01: a template of one part fills only that part', () => {
    const templates = identifyTemplates(
      definition([
        section('s1', '血常规', { identifyType: 2 }, [item('wbc1', '白细胞计数')]),
        section('s2', '复查', { identifyType: 3 }, [item('wbc2', '白细胞计数')]),
      ]),
      {},
      '表',
    );
    const answer = { items: [{ projectName: '白细胞计数', projectCode: 'WBC', result: '5.1' }] };
    expect(fillFromAnswer(templates[1]!, answer).values).toEqual({ wbc2: '5.1' });
  });

  it('RECOG-01: an item stays marked 识别 until the nurse changes or confirms it', () => {
    const marked = new Set(['wbc', 'hgb']);
    expect(afterEdit(marked, 'other')).toBe(marked);
    expect([...afterEdit(marked, 'wbc')]).toEqual(['hgb']);
  });
});
