import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import type { CrfDefinition, CrfNode } from '@ecrf/core';
import { RenderProbeContext } from './render-probe';
import { form, item, renderCrf } from './test/crf-test-utils';
import { renderWithProviders } from '../test/render';
import { CrfForm } from './crf-form';

afterEach(cleanup);

const TYPES = ['input', 'int', 'real', 'radio', 'select', 'date', 'checkbox', 'textarea', 'number', 'time'] as const;

/** 500 value items in 5 sections, with calculations and branching as a real form has them. */
export function bigForm(sectionCount = 5): CrfDefinition {
  const sections: CrfNode[] = [];
  for (let s = 0; s < sectionCount; s += 1) {
    const children: CrfNode[] = [];
    for (let i = 0; i < 100; i += 1) {
      const n = s * 100 + i;
      const type = TYPES[n % TYPES.length]!;
      const option: CrfNode['option'] = {};
      if (type === 'radio' || type === 'select' || type === 'checkbox') {
        Object.assign(option, { optionsValue: '1,2,3', optionsText: '甲,乙,丙' });
      }
      if (n % 50 === 12) Object.assign(option, { calc: `q${n - 1} * 2` }); // n - 1 is an int item
      if (n % 50 === 26) Object.assign(option, { showIf: `q${n - 3} == "1"` }); // n - 3 is a radio item
      if (n % 20 === 0) Object.assign(option, { required: 1 });
      children.push(item(type, `q${n}`, `题目${n}`, option));
    }
    sections.push(item('section', `s${s}`, `分区${s}`, { crfCols: 2 }, children));
  }
  return form(sections);
}

/** By id: label queries walk the whole document, which is slow on a 500-item form in happy-dom. */
const field = (key: string) => document.querySelector(`[id$="-${key}"]`) as HTMLElement;

function countRenders() {
  const counts = new Map<string, number>();
  const probe = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  const total = () => [...counts.values()].reduce((a, b) => a + b, 0);
  return { counts, probe, total, reset: () => counts.clear() };
}

describe('render counts: a keystroke re-renders the changed items, not the form', () => {
  it('500 items: typing into one renders that one field; typing into an input of a calculation renders the two', () => {
    const probe = countRenders();
    const definition = bigForm();
    const started = performance.now();
    const { harness } = renderCrf(definition, {}, {}, probe.probe);
    const mounted = performance.now() - started;
    const widgetRenders = () =>
      [...probe.counts.entries()].filter(([key]) => key.startsWith('crf')).reduce((a, [, n]) => a + n, 0);
    expect(widgetRenders()).toBe(500 - 10); // the 10 showIf items wait for their radio

    probe.reset();
    const t0 = performance.now();
    fireEvent.change(field('q0'), { target: { value: '甲' } });
    const keystroke = performance.now() - t0;
    expect(harness.last().q0).toBe('甲');
    expect(widgetRenders()).toBe(1);
    expect(probe.total()).toBe(2); // the node and its field

    probe.reset();
    fireEvent.change(field('q11'), { target: { value: '21' } });
    expect((field('q12') as HTMLInputElement).value).toBe('42');
    expect(widgetRenders()).toBe(2);

    probe.reset();
    fireEvent.click(within(field('q23').closest('.crf-field') as HTMLElement).getByLabelText('甲'));
    expect(field('q26')).toBeTruthy();
    expect(widgetRenders()).toBe(2); // the radio and the item it shows

    if (process.env.CRF_BENCH) {
      console.info(`500 items: mount ${mounted.toFixed(0)} ms, one keystroke ${keystroke.toFixed(1)} ms (happy-dom)`);
    }
  }, 120_000);

  it('a list group of 20 rows: typing into one cell renders that cell and its row calculation only', () => {
    const probe = countRenders();
    const definition = form(
      [
        item('listGroup', 'meds', '合并用药', {}, [
          item('input', 'drug', '药物'),
          item('real', 'dose', '剂量'),
          item('int', 'times', '次数'),
          item('real', 'daily', '日剂量'),
        ]),
      ],
      { crfRules: [{ target: 'daily', formula: 'dose * times' }] },
    );
    const rows = Array.from({ length: 20 }, (_, i) => ({ drug: `药${i}`, dose: '1', times: '2' }));
    const { harness } = renderCrf(definition, { meds: rows }, {}, probe.probe);
    const cells = () =>
      [...probe.counts.entries()].filter(([key]) => key.includes('meds[')).reduce((a, [, n]) => a + n, 0);
    expect(cells()).toBe(80);
    probe.reset();
    fireEvent.change(screen.getAllByLabelText('剂量')[7]!, { target: { value: '5' } });
    expect((screen.getAllByLabelText('日剂量')[7] as HTMLInputElement).value).toBe('10');
    expect((harness.last().meds as Array<Record<string, string>>)[7]).toEqual({
      drug: '药7',
      dose: '5',
      times: '2',
      daily: '10',
    });
    expect(cells()).toBe(2);
  });

  it('a parent re-render that hands the values back renders no widget', () => {
    const probe = countRenders();
    const definition = bigForm(1);
    let values: Record<string, unknown> = {};
    const view = renderWithProviders(
      <RenderProbeContext.Provider value={probe.probe}>
        <CrfForm definition={definition} values={values} onChange={(next) => (values = next)} />
      </RenderProbeContext.Provider>,
    );
    fireEvent.change(field('q0'), { target: { value: 'x' } });
    probe.reset();
    view.rerender(
      <RenderProbeContext.Provider value={probe.probe}>
        <CrfForm definition={definition} values={{ ...values }} onChange={(next) => (values = next)} />
      </RenderProbeContext.Provider>,
    );
    expect(probe.total()).toBe(0);
    expect((field('q0') as HTMLInputElement).value).toBe('x');
  }, 60_000);
});
