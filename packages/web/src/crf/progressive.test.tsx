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
    // The first render: the first 10 items, one placeholder per section for the run of its others (30, 40 and
    // 40 items, 76 px and a 4 px gap each), every section's frame.
    expect(field('q0')).toBeTruthy();
    expect(field('q9')).toBeTruthy();
    expect(field('q10')).toBeNull();
    expect(field('q110')).toBeNull();
    expect(pending()).toBe(3);
    const runs = [...document.querySelectorAll<HTMLElement>('.crf-col-pending')];
    expect(runs.map((run) => run.dataset.pendingItems)).toEqual(['30', '40', '40']);
    expect(runs.map((run) => run.style.height)).toEqual(['2396px', '3196px', '3196px']);
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

  it('a placeholder near the viewport renders the items estimated to lie there; the rest of its run stays one', () => {
    const observers: StubObserver[] = [];
    class StubObserver {
      targets = new Set<Element>();
      constructor(readonly callback: (entries: Partial<IntersectionObserverEntry>[]) => void) {
        observers.push(this);
      }
      observe(target: Element) {
        this.targets.add(target);
      }
      unobserve(target: Element) {
        this.targets.delete(target);
      }
      disconnect() {
        this.targets.clear();
      }
    }
    vi.stubGlobal('IntersectionObserver', StubObserver);
    try {
      renderCrf(largeForm(), {}, { progressive: OPTIONS, className: 'crf-editor-form' });
      const run = document.querySelectorAll('.crf-col-pending')[1]!;
      expect(run.getAttribute('data-pending-items')).toBe('40');
      expect(observers).toHaveLength(1);
      expect(observers[0]!.targets.has(run)).toBe(true);
      // The second section's run (q40…q79, an estimated 80 px each) scrolled 800 px above the viewport's top, the
      // viewport with its margin 400 px tall: its items 10 to 15 lie there.
      act(() =>
        observers[0]!.callback([
          {
            target: run,
            isIntersecting: true,
            boundingClientRect: { top: -800 } as DOMRectReadOnly,
            rootBounds: { top: 0, bottom: 400 } as DOMRectReadOnly,
          },
        ]),
      );
      for (let n = 50; n <= 55; n += 1) expect(field(`q${n}`)).toBeTruthy();
      expect(field('q49')).toBeNull();
      expect(field('q56')).toBeNull();
      const runs = [...document.querySelectorAll('.crf-col-pending')];
      expect(runs.map((r) => r.getAttribute('data-pending-items'))).toEqual(['30', '10', '24', '40']);
      // What is left of the run is observed afresh.
      expect(runs.every((r) => observers[0]!.targets.has(r))).toBe(true);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("a placeholder's height counts only the items shown, and follows their visibility", () => {
    const items = Array.from({ length: 13 }, (_, n) =>
      item('int', `q${n}`, `题目${n}`, n === 11 ? { showIf: 'q0 > 5' } : {}),
    );
    renderCrf(form([item('section', 's', '部分', {}, items)]), { q0: '1' }, { progressive: OPTIONS });
    const run = () => document.querySelector<HTMLElement>('.crf-col-pending')!;
    expect(run().dataset.pendingItems).toBe('3');
    expect(run().style.height).toBe('156px');
    fireEvent.change(field('q0')!, { target: { value: '9' } });
    expect(run().style.height).toBe('236px');
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
