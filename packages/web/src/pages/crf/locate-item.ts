import { revealCrfItem } from '../../crf';

const FOCUSABLE =
  'input:not([disabled]):not([type="hidden"]), textarea:not([disabled]), select:not([disabled]), button:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * Scrolls the open form to an item and puts the focus in its control. A field is found by its id
 * (the renderer's `<prefix>-<key>`, a row cell's key included); a block without one (a list group,
 * a table) by the `data-item` of its grid cell. Answers whether the item is on the page. An item a large form
 * has not rendered yet (progressive rendering) is rendered first; when React cannot render it at once (a call
 * from inside its own rendering), it is looked for again in the next frame.
 */
export function locateItem(key: string, itemName: string, root: ParentNode = document, retry = true): boolean {
  const form = root.querySelector('.crf-editor-form');
  if (!form) return false;
  revealCrfItem(itemName, form);
  if (key !== itemName) revealCrfItem(key, form);
  const target =
    form.querySelector(`[id$="-${CSS.escape(key)}"]:not(label)`) ??
    form.querySelector(`[data-item="${CSS.escape(itemName)}"]`);
  if (!target) {
    if (retry && form.querySelector('.crf-col-pending')) {
      requestAnimationFrame(() => locateItem(key, itemName, root, false));
    }
    return false;
  }
  const holder = target.closest('.crf-field') ?? target.closest('.crf-col') ?? target;
  holder.scrollIntoView({ behavior: 'smooth', block: 'center' });
  const control = target.matches(FOCUSABLE) ? target : target.querySelector(FOCUSABLE);
  if (control instanceof HTMLElement) control.focus({ preventScroll: true });
  return true;
}
