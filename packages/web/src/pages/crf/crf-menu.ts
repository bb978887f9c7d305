import { FORM_STATE, type CrfMenuNode } from '../../api/crf.api';
import { CRF_PAGE_TEXT } from '../../locales/crf-page.zh-CN';

export interface FormStateMeta {
  code: number;
  label: string;
  /** The tooltip of the state icon. */
  tip: string;
  color: string;
}

const STATE_META: Record<number, FormStateMeta> = {
  [FORM_STATE.notStarted]: {
    code: 0,
    label: CRF_PAGE_TEXT.state.notStarted,
    tip: CRF_PAGE_TEXT.state.notStartedTip,
    color: '#bfbfbf',
  },
  [FORM_STATE.incomplete]: {
    code: 1,
    label: CRF_PAGE_TEXT.state.incomplete,
    tip: CRF_PAGE_TEXT.state.incompleteTip,
    color: '#faad14',
  },
  [FORM_STATE.submitted]: {
    code: 2,
    label: CRF_PAGE_TEXT.state.submitted,
    tip: CRF_PAGE_TEXT.state.submittedTip,
    color: '#52c41a',
  },
  [FORM_STATE.doubt]: {
    code: 9,
    label: CRF_PAGE_TEXT.state.doubt,
    tip: CRF_PAGE_TEXT.state.doubtTip,
    color: '#f5222d',
  },
};

/** CRF-08: what a form's state code means on the menu; an unknown code reads as not started. */
export function formStateMeta(state: number | undefined): FormStateMeta {
  return STATE_META[state ?? FORM_STATE.notStarted] ?? STATE_META[FORM_STATE.notStarted]!;
}

/** CRF-14: repeat 1 is a single form; anything else is repeatable, with a table of records. */
export function isRepeatable(node: Pick<CrfMenuNode, 'repeat'> | undefined): boolean {
  return node !== undefined && node.repeat !== 1;
}

/** The forms of the menu in display order (stages depth first). */
export function menuForms(menu: readonly CrfMenuNode[]): CrfMenuNode[] {
  const out: CrfMenuNode[] = [];
  const walk = (nodes: readonly CrfMenuNode[]) => {
    for (const node of nodes) {
      if (node.type === 1 && node.crfId !== undefined) out.push(node);
      walk(node.childrens ?? []);
    }
  };
  walk(menu);
  return out;
}

/** CRF-12: the form the query names, when the menu offers it; otherwise the first form. */
export function initialForm(menu: readonly CrfMenuNode[], crfId: number | null | undefined): CrfMenuNode | null {
  const forms = menuForms(menu);
  return forms.find((form) => form.crfId === crfId) ?? forms[0] ?? null;
}

export function findForm(menu: readonly CrfMenuNode[], crfId: number | null | undefined): CrfMenuNode | null {
  if (crfId === null || crfId === undefined) return null;
  return menuForms(menu).find((form) => form.crfId === crfId) ?? null;
}

/** The study buttons the caller holds, as the menu lists them on its forms (forms §6). */
export function menuButtons(menu: readonly CrfMenuNode[]): string[] {
  const codes = new Set<string>();
  for (const form of menuForms(menu)) for (const btn of form.btns ?? []) codes.add(btn.code);
  return [...codes];
}

/** Keys of the stages, for a tree that opens fully on entry. */
export function stageKeys(menu: readonly CrfMenuNode[]): string[] {
  const out: string[] = [];
  const walk = (nodes: readonly CrfMenuNode[]) => {
    for (const node of nodes) {
      if (node.type === 0) {
        out.push(node.id);
        walk(node.childrens ?? []);
      }
    }
  };
  walk(menu);
  return out;
}
