import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, waitFor } from '@testing-library/react';
import type { CrfNode } from '@ecrf/core';
import { locateItem } from '../pages/crf/locate-item';
import { revealCrfItem } from './progressive';
import { form, item, renderCrf } from './test/crf-test-utils';

afterEach(cleanup);

/** 3 sections of 40 items: inputs, ints, radios; every tenth required. */
function largeForm() {
  const sections: CrfNode[] = [];
  for (let s = 0; s < 3; s += 1) {
    const children: CrfNode[] = [];
    for (let i = 0; i < 40; i += 1) {
      const n = s * 40 + i;
      const option: CrfNode['option'] = n % 10 === 0 ? { required: 1 } : {};
      if (i % 3 === 2) Object.assign(option, { optionsValue: '1,2', optionsText: '是,否' });
      children.push(item(i % 3 === 0 ? 'input' : i % 3 === 1 ? 'int' : 'radio', `q${n}`, `题目${n}`, option));
    }
    sections.push(item('section', `s${s}`, `第${s + 1}部分`, {}, children));
  }
  return form(sections);
}

const field = (key: string) => document.querySelector<HTMLElement>(`[id$="-${key}"]`);
const pending = () => document.querySelectorAll('.crf-col-pending').length;
const OPTIONS = { initial: 10, chunk: 5 };

describe('progressive rendering of a large form', () => {
  it('renders the first items at once and the off-screen ones later; values and checks cover every item meanwhile', async () => {
    const { harness } = renderCrf(
      largeForm(),
      { q1: '甲', q119: '1' },
      { progressive: OPTIONS, className: 'crf-editor-form' },
    );
    // The first render: the first 10 items, a placeholder for each of the others, every section's frame.
    expect(field('q0')).toBeTruthy();
    expect(field('q9')).toBeTruthy();
    expect(field('q10')).toBeNull();
    expect(field('q110')).toBeNull();
    expect(pending()).toBe(110);
    expect(document.querySelectorAll('.crf-section')).toHaveLength(3);
    // The engine's verdict is the store's: a required item not rendered yet is missing all the same.
    const missing = harness.state()!.errors.map((issue) => issue.item);
    expect(missing).toEqual(expect.arrayContaining(['q0', 'q50', 'q110']));

    // Typing while the rest renders: nothing typed or loaded is lost.
    fireEvent.change(field('q3')!, { target: { value: '42' } });
    expect(harness.last()).toMatchObject({ q1: '甲', q3: '42', q119: '1' });

    await waitFor(() => expect(pending()).toBe(0), { timeout: 30_000 });
    expect(field('q110')).toBeTruthy();
    expect((field('q3') as HTMLInputElement).value).toBe('42');
    expect((field('q1') as HTMLInputElement).value).toBe('甲');
    expect(harness.last()).toMatchObject({ q1: '甲', q3: '42', q119: '1' });
  }, 60_000);

  it('an item jumped to renders at once: revealCrfItem, and locateItem scrolls to it and focuses it', () => {
    renderCrf(largeForm(), {}, { progressive: OPTIONS, className: 'crf-editor-form' });
    expect(field('q100')).toBeNull();
    act(() => revealCrfItem('q100'));
    expect(field('q100')).toBeTruthy();
    // Only that part of the form: the items between are still to come.
    expect(field('q60')).toBeNull();

    expect(field('q70')).toBeNull();
    const scrolled = vi.fn();
    const scrollIntoView = Element.prototype.scrollIntoView;
    Element.prototype.scrollIntoView = scrolled;
    let found = false;
    try {
      act(() => {
        found = locateItem('q70', 'q70');
      });
    } finally {
      Element.prototype.scrollIntoView = scrollIntoView;
    }
    expect(found).toBe(true);
    expect(document.activeElement).toBe(field('q70'));
    expect(scrolled).toHaveBeenCalled();
  });

  it('printing renders everything first', () => {
    renderCrf(largeForm(), {}, { progressive: OPTIONS, className: 'crf-editor-form' });
    expect(pending()).toBeGreaterThan(0);
    act(() => {
      window.dispatchEvent(new Event('beforeprint'));
    });
    expect(pending()).toBe(0);
    expect(field('q119')).toBeTruthy();
  });

  it('a form no larger than the first render renders whole, with no placeholder', () => {
    renderCrf(
      form([item('section', 's', '部分', {}, [item('input', 'a', '甲'), item('int', 'b', '乙')])]),
      {},
      { progressive: OPTIONS },
    );
    expect(field('a')).toBeTruthy();
    expect(field('b')).toBeTruthy();
    expect(pending()).toBe(0);
  });
});
