import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lintDefinition } from '../linter.js';
import { ALL_VALUE_ITEM_TYPES, arbitraryForm } from './arbitrary-form.js';

describe('arbitraryForm', () => {
  it('generates forms the linter accepts without a finding', () => {
    fc.assert(
      fc.property(arbitraryForm({ types: ALL_VALUE_ITEM_TYPES, alternateTitles: true }), (definition) => {
        const lint = lintDefinition(definition);
        expect([...lint.errors, ...lint.warnings]).toEqual([]);
        expect(lint.definition).toEqual(definition);
      }),
      { numRuns: 200 },
    );
  });

  it('switches features off for formats that cannot carry them', () => {
    fc.assert(
      fc.property(arbitraryForm({ listGroups: false, sections: false, expressions: false, ids: false }), (d) => {
        expect(d.id).toBeUndefined();
        expect(d.children.every((n) => n.children.length === 0 && !n.option.showIf && !n.option.calc)).toBe(true);
        expect(lintDefinition(d).ok).toBe(true);
      }),
      { numRuns: 50 },
    );
  });
});
