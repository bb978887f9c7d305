import crypto from 'node:crypto';
import { countValueItems, type CrfDefinition } from '@ecrf/core';
import { canonicalJson } from '../../shared/canonical-json.js';

/** What a stored CRF version records about its definition, computed where the file is read. */
export interface DefinitionFacts {
  itemCount: number;
  /**
   * SHA-256 of the definition's canonical JSON as uploaded, before the CRF's id is attached: it pins exactly
   * which form data will be captured with (the audit row of the upload carries it).
   */
  sha256: string;
}

export function definitionFacts(definition: CrfDefinition): DefinitionFacts {
  const { id: _id, ...uploaded } = definition;
  return {
    itemCount: countValueItems(definition.children),
    sha256: crypto.createHash('sha256').update(canonicalJson(uploaded)).digest('hex'),
  };
}
