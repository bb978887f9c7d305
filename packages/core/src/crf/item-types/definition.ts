import type { CrfNode, ItemType } from '../crf-definition.schema.js';
import type { FieldType } from '../field-rules.js';
import type { SearchKind } from '../../search.js';
import type { ExportVariableKind } from '../../export.js';

/**
 * What an item type is and does, in one place (docs/architecture.md, "Adding an item type"). The engine, the
 * value shapes, the readers, search, exports, imports and the interop formats ask the registry
 * (`itemTypeOf(type)`); none of them switches over the type names. The web registers the widget that draws the
 * type (packages/web/src/crf/widget-registry.tsx); the server registers nothing type-specific.
 */
export interface ItemTypeDefinition {
  readonly type: ItemType;
  /** Its Chinese name: the CRF outline in the browser, the Excel workbook's 题目类型 column. */
  readonly label: string;
  /**
   * container: arranges other nodes, holds no value (section, group, card); rows: a value that is an array of
   * rows keyed by its children's names (list group, table); display: shows text, holds no value (title, link);
   * value: an item with a value of its own.
   */
  readonly role: 'container' | 'rows' | 'display' | 'value';
  /** Any accepted stored shape of a value in its canonical form; undefined is no value. */
  normalize(raw: unknown, node: CrfNode): unknown;
  /**
   * Whether the option's validate.type/min/max and validationEx apply to the value as a number or a text, and
   * the field type when validate.type does not say (text otherwise).
   */
  readonly bounded: false | { readonly fieldType: FieldType };
  /** The type's own judgement of a non-empty value that passed the field rule: a message, or null. */
  validate?(value: unknown, node: CrfNode, context: ValidationContext): string | null;
  /** What a default value of "now" means for a new form, when it means anything. */
  now?(node: CrfNode, now: Date, timeZone: string): string;
  /** Whether a number's unit (option.units, the chosen `<name>_unit`) follows the value where it is read. */
  readonly hasUnit: boolean;
  /** The value as a person reads it; without it (or when it answers undefined) its text with its unit. */
  text?(value: unknown, node: CrfNode, context: ValueTextContext): string | undefined;
  /** How data retrieval compares its values; null: not searchable itself. */
  searchKind(node: Pick<CrfNode, 'type' | 'option'>): SearchKind | null;
  /** Its column in a tabular export: a kind, or one 0/1 column per choice ('perChoice'). Rows export as text. */
  exportKind(node: CrfNode): ExportVariableKind | 'perChoice';
  /** A spreadsheet cell's trimmed, non-empty text as a value, before the engine judges it; text by default. */
  importCell?(text: string, node: CrfNode): unknown;
  /** Why an import cannot write it, when it cannot (a calculated item is refused by the importer itself). */
  readonly notImportable?: 'file' | 'rows';
  /** ODM 1.3.2 ItemDef DataType. */
  odmDataType(node: CrfNode): string;
  /** Its REDCap data dictionary field (the exporter adds choices, validation and ranges by `shape`). */
  readonly redcap: RedcapExportShape;
  /**
   * Items this type calculates in the form (the spine tools fill the items their options name): formulas run
   * like crfRules, which win over them.
   */
  impliedRules?(nodes: readonly CrfNode[]): ImpliedRule[];
}

export interface ValidationContext {
  /** Today in the study's zone, YYYY-MM-DD. */
  today: string;
}

export interface ValueTextContext {
  /** The whole record (the addition text and unit are kept beside the item). */
  values: Readonly<Record<string, unknown>>;
  /** Original names of stored files by key (uploads then read as names instead of a count). */
  fileNames?: ReadonlyMap<string, string>;
  /** Reads a child item's value (rows). */
  childText(child: CrfNode, value: unknown, row: Readonly<Record<string, unknown>>): string;
}

export interface ImpliedRule {
  target: string;
  formula: string;
  /** Where in the definition the rule comes from, for the linter's messages. */
  path: string;
}

/**
 * How the REDCap exporter writes the type: `structure` is walked (containers, rows as forms of their own); the
 * rest are field shapes the exporter fills with the node's choices, validation, range and tags. `json` is a value
 * REDCap can only keep as the text of a notes field. `warning` is said once per exported item (what REDCap cannot
 * keep of it).
 */
export interface RedcapExportShape {
  readonly shape:
    | 'structure'
    | 'title'
    | 'link'
    | 'choice'
    | 'slider'
    | 'text'
    | 'notes'
    | 'json'
    | 'file'
    | 'integer'
    | 'decimal'
    | 'date'
    | 'datetime'
    | 'time';
  readonly warning?: (node: CrfNode) => string | null;
}
