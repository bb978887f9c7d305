import { createContext, startTransition, useContext, useEffect, useState, useSyncExternalStore } from 'react';
import { flushSync } from 'react-dom';
import type { CrfDefinition, CrfNode } from '@ecrf/core';

/**
 * Progressive rendering of a large form (docs/decisions.md "CRF page: progressive rendering"). The form's
 * units — its items and blocks, the containers (sections, cards, plain groups) being opened up — get an order;
 * the first `initial` units render at once, and the rest render in order in idle time, a few per task, so a
 * keystroke waits for one small chunk at most. Meanwhile each run of consecutive units not rendered yet in a
 * container is one placeholder, as tall as its items are estimated to be (crf-node.tsx, PendingRun). The units
 * of a placeholder that comes near the viewport render at once (those it estimates to lie there), an item jumped
 * to (revealCrfItem) renders synchronously, and printing renders everything first. Only what is in the DOM is
 * progressive: the engine's state (values, visibility, required checks, messages, the save) lives in the store
 * and covers every item.
 */
export interface ProgressiveOptions {
  /** Units rendered with the form's first render: enough to fill a screen. */
  initial?: number;
  /** Units rendered by the first idle task; later tasks are sized to about CHUNK_BUDGET_MS. */
  chunk?: number;
}

export const PROGRESSIVE_DEFAULTS = { initial: 12, chunk: 6 } as const;
/** What one idle task aims to spend rendering (a frame at 60 Hz is 16.7 ms; input waits for one task). */
const CHUNK_BUDGET_MS = 24;
/** Placeholders this far below (or above) the viewport render before they come into view. */
const NEAR_VIEWPORT = '400px 0px';

const CONTAINERS = new Set(['section', 'card']);
const isContainer = (node: CrfNode) =>
  CONTAINERS.has(node.type) || (node.type === 'group' && node.option.showStyle !== 'table');

/** The root name of a row cell's key (`list[0].child` → `list`). */
const rootName = (name: string) => name.replace(/\[.*$/, '');

type Idle = (callback: () => void) => () => void;
const idle: Idle =
  typeof window !== 'undefined' && typeof window.requestIdleCallback === 'function'
    ? (callback) => {
        const id = window.requestIdleCallback(callback, { timeout: 100 });
        return () => window.cancelIdleCallback(id);
      }
    : (callback) => {
        const id = setTimeout(callback, 0);
        return () => clearTimeout(id);
      };

/** A unit of a run placeholder: its place in the order and its estimated box, from the placeholder's top. */
export interface PendingSlot {
  at: number;
  top: number;
  height: number;
}

export class ProgressiveRender {
  /** Each unit's place in the order. */
  private order = new WeakMap<CrfNode, number>();
  /** Every named node (a unit or anything inside one) → the unit that renders it. */
  private unitOfName = new Map<string, number>();
  readonly units: number;
  /** Units [0, upTo) are rendered; `extra` holds those rendered out of order. */
  private upTo: number;
  private extra = new Set<number>();
  private chunk: number;
  private listeners = new Set<() => void>();
  private cancel: (() => void) | null = null;
  private observer: IntersectionObserver | null = null;
  private observed = new Map<Element, readonly PendingSlot[]>();

  constructor(definition: CrfDefinition, options: ProgressiveOptions = {}) {
    let count = 0;
    const names = (node: CrfNode, unit: number) => {
      if (node.name) this.unitOfName.set(node.name, unit);
      for (const child of node.children) names(child, unit);
    };
    const walk = (nodes: readonly CrfNode[]) => {
      for (const node of nodes) {
        if (isContainer(node)) {
          walk(node.children);
          continue;
        }
        this.order.set(node, count);
        names(node, count);
        count += 1;
      }
    };
    walk(definition.children);
    this.units = count;
    this.upTo = Math.min(count, options.initial ?? PROGRESSIVE_DEFAULTS.initial);
    this.chunk = options.chunk ?? PROGRESSIVE_DEFAULTS.chunk;
  }

  get complete(): boolean {
    return this.upTo >= this.units;
  }

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  /** Whether a node renders now: containers always do (their units decide), units once their turn has come. */
  isRendered(node: CrfNode): boolean {
    const at = this.order.get(node);
    return at === undefined || at < this.upTo || this.extra.has(at);
  }

  /** A unit's place in the order (undefined for a container or anything inside a unit). */
  unitOf(node: CrfNode): number | undefined {
    return this.order.get(node);
  }

  /**
   * Which of a container's children wait for their turn: one character per child, `p` for a unit not rendered
   * yet, `r` for anything else. A string, so that a container renders again only when its own children change.
   */
  pattern(nodes: readonly CrfNode[]): string {
    let text = '';
    for (const node of nodes) text += this.isRendered(node) ? 'r' : 'p';
    return text;
  }

  /** Starts rendering the rest in idle time; answers the stop. */
  start(): () => void {
    this.schedule();
    return () => {
      this.cancel?.();
      this.cancel = null;
      this.observer?.disconnect();
      this.observer = null;
      this.observed.clear();
    };
  }

  /** Renders the unit holding an item (a row cell's key names its list) now; answers whether the form has it. */
  reveal(name: string): boolean {
    const unit = this.unitOfName.get(name) ?? this.unitOfName.get(rootName(name));
    if (unit === undefined) return false;
    if (unit >= this.upTo && !this.extra.has(unit)) {
      // Its neighbours too: the item lands among rendered ones and keeps its place while the rest renders.
      const last = Math.min(this.units - 1, unit + 2);
      for (let at = Math.max(this.upTo, unit - 2); at <= last; at += 1) this.extra.add(at);
      this.flush();
    }
    return true;
  }

  /** Renders everything now (printing). */
  revealAll() {
    if (this.complete) return;
    this.upTo = this.units;
    this.extra.clear();
    this.flush();
  }

  /**
   * A run placeholder's element and its units' estimated boxes: when it comes near the viewport, the units
   * estimated to lie in the viewport (with its margin) render at once.
   */
  observe(element: Element, slots: readonly PendingSlot[]) {
    if (slots.length === 0 || typeof IntersectionObserver === 'undefined') return;
    this.observer ??= new IntersectionObserver((entries) => this.intersected(entries), { rootMargin: NEAR_VIEWPORT });
    this.observed.set(element, slots);
    this.observer.observe(element);
  }

  unobserve(element: Element) {
    if (!this.observed.delete(element)) return;
    this.observer?.unobserve(element);
  }

  private intersected(entries: IntersectionObserverEntry[]) {
    let added = false;
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      const slots = this.observed.get(entry.target);
      if (!slots) continue;
      // The part of the placeholder inside the viewport and its margin, from the placeholder's top.
      const box = entry.boundingClientRect;
      const from = entry.rootBounds ? entry.rootBounds.top - box.top : 0;
      const to = entry.rootBounds ? entry.rootBounds.bottom - box.top : Infinity;
      let picked = slots.filter((slot) => slot.top <= to && slot.top + slot.height >= from);
      // Estimates are estimates: at least the unit nearest to that part (the placeholder is there).
      if (picked.length === 0) picked = [slots.find((slot) => slot.top >= from) ?? slots[slots.length - 1]!];
      for (const { at } of picked) {
        if (at < this.upTo || this.extra.has(at)) continue;
        this.extra.add(at);
        added = true;
      }
    }
    // The rest of a run is a new placeholder, observed afresh: it renders in turn if it is still near.
    if (added) this.flush();
  }

  private schedule() {
    if (this.complete || this.cancel) return;
    this.cancel = idle(() => {
      this.cancel = null;
      const started = performance.now();
      this.upTo = Math.min(this.units, this.upTo + this.chunk);
      for (const at of this.extra) if (at < this.upTo) this.extra.delete(at);
      this.flush();
      // The next chunk is sized to the budget by what this one cost.
      const spent = Math.max(1, performance.now() - started);
      const perUnit = spent / this.chunk;
      this.chunk = Math.max(1, Math.min(50, Math.round(CHUNK_BUDGET_MS / perUnit)));
      this.schedule();
    });
  }

  /** Tells the placeholders, and has React render the change before answering. */
  private flush() {
    flushSync(() => {
      for (const listener of [...this.listeners]) listener();
    });
  }
}

export const ProgressiveContext = createContext<ProgressiveRender | null>(null);

/** `ProgressiveRender.pattern` of a container's children ('' outside a progressive form: everything renders). */
export function usePendingPattern(nodes: readonly CrfNode[]): string {
  const progressive = useContext(ProgressiveContext);
  return useSyncExternalStore(progressive?.subscribe ?? noSubscription, () => progressive?.pattern(nodes) ?? '');
}

const noSubscription = () => () => undefined;

export function useProgressive(): ProgressiveRender | null {
  return useContext(ProgressiveContext);
}

/** The DOM event revealCrfItem sends to the forms: each renders the item at once if it has it. */
export const REVEAL_EVENT = 'crf-reveal';

/**
 * Has the form(s) under `root` render an item that progressive rendering has not reached yet, synchronously:
 * once this returns, the item's field is in the DOM (a jump to an item calls this before looking for it).
 */
export function revealCrfItem(name: string, root: ParentNode = document) {
  const forms = [...root.querySelectorAll('.crf-form')];
  if (root instanceof Element && root.matches('.crf-form')) forms.unshift(root);
  for (const form of forms) {
    form.dispatchEvent(new CustomEvent(REVEAL_EVENT, { detail: name }));
  }
}

/**
 * How many of a long list's `total` entries to render whole: `initial` at once, then `chunk` more per idle task
 * (as a transition, so typing goes first) until all are.
 */
export function useIdleCount(total: number, initial: number, chunk = 40): number {
  const [count, setCount] = useState(initial);
  const done = count >= total;
  useEffect(() => {
    if (done) return;
    return idle(() => startTransition(() => setCount((n) => n + chunk)));
  }, [done, count, chunk]);
  return count;
}
