import type { CrfNode } from '../crf/crf-definition.schema.js';
import { statName, type ExportVariable } from '../export.js';
import type { CodingKind } from './coding-contract.js';

/**
 * Coded terms in the export, beside the verbatim (issue 37): MedDRA `<item>_llt`, `<item>_pt`, `<item>_soc` hold the
 * terms' names (as SDTM's AELLT, AEDECOD, AEBODSYS), WHODrug `<item>_atc` the ATC code. A coded item has them in every
 * export of the study whatever its records hold, so the columns do not depend on the scope; blank while uncoded.
 */
const COLUMNS: Readonly<Record<CodingKind, ReadonlyArray<{ suffix: string; field: string; title: string }>>> = {
  meddra: [
    { suffix: 'llt', field: 'lltName', title: 'LLT' },
    { suffix: 'pt', field: 'ptName', title: 'PT' },
    { suffix: 'soc', field: 'socName', title: 'SOC' },
  ],
  whodrug: [{ suffix: 'atc', field: 'atcCode', title: 'ATC' }],
};

export const codingKey = (item: string, suffix: string) => `${item}_${suffix}`;

/** The form's export variables with the coded items' term columns right after each one's own variable. */
export function withCodingVariables(
  variables: readonly ExportVariable[],
  coded: ReadonlyMap<string, CodingKind>,
): ExportVariable[] {
  if (coded.size === 0) return [...variables];
  return variables.flatMap((v) => {
    const kind = coded.get(v.item);
    if (!kind) return [v];
    return [
      v,
      ...COLUMNS[kind].map(({ suffix, title: level }): ExportVariable => {
        const key = codingKey(v.item, suffix);
        const title = `${v.node.title || v.item}（${level}）`;
        const node: CrfNode = { name: key, title, type: 'input', option: {}, children: [] };
        return { name: statName(key), item: key, title, kind: 'text', choices: [], unit: '', node };
      }),
    ];
  });
}

/** A record's values with its coded items' terms beside them, as the export variables read them. */
export function valuesWithCodes(
  values: Readonly<Record<string, unknown>>,
  codings: ReadonlyArray<{ itemName: string; coding: Record<string, unknown> | null }> | undefined,
): Record<string, unknown> {
  if (!codings || codings.length === 0) return values as Record<string, unknown>;
  const out: Record<string, unknown> = { ...values };
  for (const { itemName, coding } of codings) {
    const kind = coding?.kind;
    if (!coding || (kind !== 'meddra' && kind !== 'whodrug')) continue;
    for (const { suffix, field } of COLUMNS[kind]) out[codingKey(itemName, suffix)] = coding[field] ?? '';
  }
  return out;
}
