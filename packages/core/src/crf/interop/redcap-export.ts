import type { CrfDefinition, CrfNode } from '../crf-definition.schema.js';
import type { ImportIssue } from './import-result.js';

/** REDCap's 18 data dictionary columns, in its order and spelling. */
export const REDCAP_COLUMNS = [
  'Variable / Field Name',
  'Form Name',
  'Section Header',
  'Field Type',
  'Field Label',
  'Choices, Calculations, OR Slider Labels',
  'Field Note',
  'Text Validation Type OR Show Slider Number',
  'Text Validation Min',
  'Text Validation Max',
  'Identifier?',
  'Branching Logic (Show field only if...)',
  'Required Field?',
  'Custom Alignment',
  'Question Number (surveys only)',
  'Matrix Group Name',
  'Matrix Ranking?',
  'Field Annotation',
] as const;

export interface RedcapExport {
  /** The dictionary as REDCap reads it: a header row and one row per field. */
  csv: string;
  /** What could not be carried over, or was changed to fit REDCap, per form and item. */
  issues: ImportIssue[];
}

// Every cell quoted, as REDCap writes its own dictionaries: labels hold commas, quotes and line breaks.
const csvCell = (value: string) => `"${value.replace(/"/g, '""')}"`;
const csvRow = (cells: readonly string[]) => cells.map(csvCell).join(',');

/** CRF definitions to a REDCap data dictionary, one REDCap form per definition. */
export function exportRedcapDictionary(definitions: readonly CrfDefinition[]): RedcapExport {
  const rows: string[][] = [];
  const issues: ImportIssue[] = [];
  for (const definition of definitions) {
    const fromTitle = definition.title.trim().toLowerCase().replace(/\s+/g, '_');
    const form = /^[a-z][a-z0-9_]*$/.test(fromTitle) ? fromTitle : `form_${definitions.indexOf(definition) + 1}`;
    const walk = (nodes: readonly CrfNode[]) => {
      for (const node of nodes) {
        if (node.children.length > 0) walk(node.children);
        else if (node.name) {
          const row: string[] = Array<string>(REDCAP_COLUMNS.length).fill('');
          row[0] = node.name;
          row[1] = form;
          row[3] = 'text';
          row[4] = node.title;
          rows.push(row);
        }
      }
    };
    walk(definition.children);
  }
  return { csv: [csvRow(REDCAP_COLUMNS), ...rows.map(csvRow)].join('\r\n') + '\r\n', issues };
}
