/**
 * The generated 500-item form the CRF benches share: 10 sections of 50 items with 100 expressions (40
 * calculations, 40 showIf conditions, 20 cross-field checks) plus triggers, and values for every item.
 */
import type { CrfDefinition, CrfNode } from '../packages/core/src/index.js';

export const SECTIONS = 10;
export const PER_SECTION = 50;

export interface GeneratedForm {
  definition: CrfDefinition;
  counts: { calc: number; showIf: number; checks: number };
}

export function generateForm(title = '性能测试表单'): GeneratedForm {
  const sections: CrfNode[] = [];
  let calc = 0;
  let showIf = 0;
  let checks = 0;
  for (let s = 0; s < SECTIONS; s += 1) {
    const children: CrfNode[] = [];
    for (let i = 0; i < PER_SECTION; i += 1) {
      const n = s * PER_SECTION + i;
      const name = `q${n}`;
      const option: CrfNode['option'] = {};
      let type: CrfNode['type'] = 'real';
      if (i % 10 === 0) {
        type = 'radio';
        option.optionsValue = '1,2,3';
        option.optionsText = '是,否,不详';
      } else if (i % 10 === 5) {
        type = 'date';
        option.showStyle = 'pastTime';
      } else if (i % 10 === 9) {
        type = 'input';
        option.validate = { max: 50 };
      } else {
        option.validate = { min: 0, max: 1000, precision: 2 };
        option.required = 1;
      }
      if (type === 'real' && i % 10 === 3 && calc < 40) {
        option.calc = `round(q${n - 2} * 2 + q${n - 1} / 3, 2)`;
        option.readOnly = 1;
        calc += 1;
      } else if (type === 'real' && i % 10 === 7 && showIf < 40) {
        option.showIf = `q${n - 1} > 10 and q${n - 6} != 3`;
        showIf += 1;
      } else if (type === 'real' && i % 10 === 8 && checks < 20 && s % 2 === 0) {
        option.checks = [
          { expression: `q${n} >= q${n - 7}`, message: '应不小于前值', severity: i % 20 === 8 ? 'warning' : 'error' },
        ];
        checks += 1;
      } else if (type === 'real' && i % 10 === 4) {
        option.trig = `q${n - 4}`;
        option.tindex = '0';
      }
      children.push({ name, title: `题目${n}`, type, option, children: [] });
    }
    sections.push({ name: `s${s}`, title: `第${s + 1}部分`, type: 'section', option: {}, children });
  }
  return { definition: { title, option: {}, children: sections }, counts: { calc, showIf, checks } };
}

/** A value for every item: radios 是, dates 2020-01-01, inputs 备注, numbers 0–99. */
export function generatedValues(): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (let n = 0; n < SECTIONS * PER_SECTION; n += 1) {
    const i = n % PER_SECTION;
    values[`q${n}`] = i % 10 === 0 ? '1' : i % 10 === 5 ? '2020-01-01' : i % 10 === 9 ? '备注' : String((n * 7) % 100);
  }
  return values;
}
