import type { AuditEvent } from '../../../api/subject.api';

/**
 * The row's subject: a patient field, the state, or the form and item it touched, in the words the
 * server gave (the item's title in the row's CRF version).
 */
export function operateItem(event: Pick<AuditEvent, 'crfTitle' | 'itemTitle'>): string {
  if (event.crfTitle && event.itemTitle) return `${event.crfTitle} / ${event.itemTitle}`;
  return event.crfTitle || event.itemTitle || '';
}
