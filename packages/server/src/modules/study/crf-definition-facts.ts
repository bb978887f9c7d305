import crypto from 'node:crypto';
import { countValueItems, formReferencesOf, type CrfDefinition } from '@ecrf/core';
import { canonicalJson } from '../../shared/canonical-json.js';

/**
 * One form of an upload as the store needs it: its title, its definition already as JSON text, and what the
 * stored version records about it. The reading worker hands these over instead of the object graph, so the
 * server's event loop neither rebuilds nor re-serialises an 18 MB definition.
 */
export interface ReadForm {
  title: string;
  json: string;
  itemCount: number;
  /**
   * SHA-256 of the definition's canonical JSON as uploaded, before the CRF's id is attached: it pins exactly
   * which form data will be captured with (the audit row of the upload carries it).
   */
  sha256: string;
  /** Titles of the other forms its form("标题", "item") calls read; the upload warns about those the study lacks. */
  formTitles: string[];
}

export function readForm(definition: CrfDefinition): ReadForm {
  const { id: _id, ...uploaded } = definition;
  return {
    title: definition.title,
    json: JSON.stringify(uploaded),
    itemCount: countValueItems(definition.children),
    sha256: crypto.createHash('sha256').update(canonicalJson(uploaded)).digest('hex'),
    formTitles: [...new Set(formReferencesOf(definition).map((r) => r.form))],
  };
}
