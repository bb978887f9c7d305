import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CrfDefinition, CrfNode } from '../crf-definition.schema.js';
import { lintDefinition } from '../linter.js';
import { ALL_VALUE_ITEM_TYPES, arbitraryForm } from '../test/arbitrary-form.js';
import { withoutOurAliases } from '../test/odm-foreign.js';
import { exportOdm, importOdm } from './odm.js';

const NOW = new Date(Date.UTC(2024, 0, 1));

const walk = (nodes: readonly CrfNode[]): CrfNode[] => nodes.flatMap((n) => [n, ...walk(n.children)]);

describe('ODM round trip (property)', () => {
  it('importOdm(exportOdm(forms)) gives back the linted forms exactly, without a finding', () => {
    fc.assert(
      fc.property(
        fc.array(arbitraryForm({ types: ALL_VALUE_ITEM_TYPES, alternateTitles: true }), { minLength: 1, maxLength: 2 }),
        (forms) => {
          // Two forms may draw the same id; ids are unique in a study.
          const defs = forms.map((f, i) => ({ ...f, id: `${String(f.id)}_${i}` }));
          const linted = defs.map((d) => {
            const lint = lintDefinition(d);
            expect([...lint.errors, ...lint.warnings]).toEqual([]);
            return lint.definition!;
          });
          const result = importOdm(exportOdm(defs, { now: NOW }));
          expect(result.issues).toEqual([]);
          expect(result.definitions).toEqual(linted);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a reader that ignores our namespace still gets every showIf and calc from ConditionDef and MethodDef', () => {
    fc.assert(
      fc.property(arbitraryForm({ types: ALL_VALUE_ITEM_TYPES }), (definition: CrfDefinition) => {
        const result = importOdm(withoutOurAliases(exportOdm([definition], { now: NOW })));
        expect(result.issues.filter((i) => i.severity === 'error')).toEqual([]);
        const imported = new Map(walk(result.definitions[0]!.children).map((n) => [n.name, n]));
        for (const node of walk(definition.children)) {
          // Items keep their names (ItemDef Name); groups are named from their OIDs by a foreign reader.
          const twin =
            node.children.length > 0 ? imported.get(`${String(definition.id)}_${node.name}`) : imported.get(node.name);
          expect(twin, node.name).toBeDefined();
          expect(twin!.option.showIf).toBe(node.option.showIf);
          expect(twin!.option.calc).toBe(node.option.calc);
        }
      }),
      { numRuns: 60 },
    );
  });
});
