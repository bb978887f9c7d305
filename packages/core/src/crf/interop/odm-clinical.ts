import { XMLParser } from 'fast-xml-parser';
import type { CrfNode } from '../crf-definition.schema.js';
import { isEmptyValue } from '../field-rules.js';
import { DATE_FORMATS, dateFormatOf, parsePartialDate, type DateFormat } from '../partial-date.js';
import { isUploadItem, valueText } from '../record-values.js';
import { readChoiceList, readRows } from '../value-shapes.js';
import { shiftDate } from '../../export.js';
import type { OdmFormLayout, OdmItemPlace } from './odm-export.js';
import { attr, content, list, type XmlNode } from './odm-xml.js';
import { escAttr } from './odm-write.js';
import { odmMissingFlag } from './odm-missing.js';

/**
 * CDISC ODM 1.3.2 ClinicalData: the data export writes it after the metadata of odm.ts (whose OIDs it uses),
 * one SubjectData at a time so a study of any size streams; the reader gives the values back, for tests and
 * for anyone checking a file against the metadata. Values are written in ODM's forms of their DataType: codes,
 * ISO 8601 dates, date-times with `T` and seconds, times with seconds; a multiple choice is one 1/0 per option
 * (its boolean items), the addition text beside an option its own item, an upload its files' names.
 */

export interface OdmItemGroupData {
  groupOid: string;
  /** A repeating group's row number (1, 2, …). */
  repeatKey?: number;
  /** `missing`: the item is marked with this missing-data code and has no value (odm-missing.ts). */
  items: ReadonlyArray<{ itemOid: string; value: string; missing?: string }>;
}

export interface OdmFormData {
  formOid: string;
  /** A repeating form's instance (1, 2, …). */
  repeatKey?: number;
  groups: readonly OdmItemGroupData[];
}

export interface OdmEventData {
  eventOid: string;
  forms: readonly OdmFormData[];
}

export const odmClinicalDataOpen = (studyOid: string, metaDataVersionOid: string) =>
  `<ClinicalData StudyOID="${escAttr(studyOid)}" MetaDataVersionOID="${escAttr(metaDataVersionOid)}">`;

export const ODM_CLINICAL_DATA_CLOSE = '</ClinicalData>\n</ODM>\n';

/** One subject's data as a SubjectData element (one line). */
export function odmSubjectData(subjectKey: string, events: readonly OdmEventData[]): string {
  const out: string[] = [`<SubjectData SubjectKey="${escAttr(subjectKey)}">`];
  for (const event of events) {
    out.push(`<StudyEventData StudyEventOID="${escAttr(event.eventOid)}">`);
    for (const form of event.forms) {
      const key = form.repeatKey === undefined ? '' : ` FormRepeatKey="${form.repeatKey}"`;
      out.push(`<FormData FormOID="${escAttr(form.formOid)}"${key}>`);
      for (const group of form.groups) {
        const gkey = group.repeatKey === undefined ? '' : ` ItemGroupRepeatKey="${group.repeatKey}"`;
        out.push(`<ItemGroupData ItemGroupOID="${escAttr(group.groupOid)}"${gkey}>`);
        for (const item of group.items) {
          out.push(
            item.missing === undefined
              ? `<ItemData ItemOID="${escAttr(item.itemOid)}" Value="${escAttr(item.value)}"/>`
              : `<ItemData ItemOID="${escAttr(item.itemOid)}">${odmMissingFlag(item.missing)}</ItemData>`,
          );
        }
        out.push('</ItemGroupData>');
      }
      out.push('</FormData>');
    }
    out.push('</StudyEventData>');
  }
  out.push('</SubjectData>\n');
  return out.join('');
}

/** One value of a ClinicalData section, with where it sits. */
export interface OdmClinicalValue {
  subjectKey: string;
  eventOid: string;
  formOid: string;
  formRepeatKey: string | null;
  groupOid: string;
  groupRepeatKey: string | null;
  itemOid: string;
  value: string;
}

/** Every ItemData of every ClinicalData section of an ODM file, in document order. */
export function readOdmClinicalData(xml: string): OdmClinicalValue[] {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    removeNSPrefix: true,
    parseAttributeValue: false,
    parseTagValue: false,
    trimValues: false,
    isArray: (name) =>
      ['ClinicalData', 'SubjectData', 'StudyEventData', 'FormData', 'ItemGroupData', 'ItemData'].includes(name),
  });
  const odm = (parser.parse(xml) as XmlNode).ODM as XmlNode | undefined;
  const out: OdmClinicalValue[] = [];
  for (const clinical of list(odm, 'ClinicalData')) {
    for (const subject of list(clinical, 'SubjectData')) {
      for (const event of list(subject, 'StudyEventData')) {
        for (const form of list(event, 'FormData')) {
          for (const group of list(form, 'ItemGroupData')) {
            for (const item of list(group, 'ItemData')) {
              out.push({
                subjectKey: attr(subject, 'SubjectKey') ?? '',
                eventOid: attr(event, 'StudyEventOID') ?? '',
                formOid: attr(form, 'FormOID') ?? '',
                formRepeatKey: attr(form, 'FormRepeatKey') ?? null,
                groupOid: attr(group, 'ItemGroupOID') ?? '',
                groupRepeatKey: attr(group, 'ItemGroupRepeatKey') ?? null,
                itemOid: attr(item, 'ItemOID') ?? '',
                value: attr(item, 'Value') ?? content(item),
              });
            }
          }
        }
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// A record's values as ODM writes them

export interface OdmValueOptions {
  /** The patient's date offset in days (export.ts shiftDate); a date that cannot move is withheld. */
  shiftDays?: number | null;
  /** Uploaded files' names by key (valueText's): an upload is written as its files' names, never their keys. */
  fileNames?: ReadonlyMap<string, string>;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * A stored date in ODM's form of its item's DataType (odmDateType in item-types/date-types.ts): `2024-03-01`,
 * `2024-03-01T08:30:00` (seconds added), `2024-03` for a format without the day. Unknown parts (UK) are
 * left off the end where they end it (`2024-UK-UK` is `2024`), and written as ODM's incomplete form (`--03-15`)
 * where a known part follows one. A text that does not read as a date in its format is written as it is.
 */
export function odmDateValue(text: string, itemFormat: DateFormat): string {
  const trimmed = text.trim();
  // A value kept from before its item's format changed reads in the format of its own length.
  const format = parsePartialDate(trimmed, itemFormat, true)
    ? itemFormat
    : DATE_FORMATS.find((f) => f.length === trimmed.length);
  const parsed = format && parsePartialDate(trimmed, format, true);
  if (!format || !parsed) return text;
  const date = [
    parsed.year === null ? '-' : pad(parsed.year, 4),
    format.length < 7 ? null : parsed.month === null ? '-' : pad(parsed.month),
    format.length < 10 ? null : parsed.day === null ? '-' : pad(parsed.day),
  ].filter((p): p is string => p !== null);
  if (format.length <= 10) {
    const known = date.findIndex((p) => p === '-');
    if (known < 0) return date.join('-');
    if (date.slice(known).every((p) => p === '-') && known > 0) return date.slice(0, known).join('-');
    return [...date, '-', '-'].slice(0, 3).join('-');
  }
  const part = (n: number | null, shown: boolean) => (!shown ? '00' : n === null ? '-' : pad(n));
  const time = [
    part(parsed.hour, true),
    part(parsed.minute, format.length >= 16),
    part(parsed.second, format.length >= 19),
  ];
  return `${date.join('-')}T${time.join(':')}`;
}

/** A stored time with its seconds (`08:30` is `08:30:00`), as ODM's time wants it. */
export function odmTimeValue(text: string): string {
  return /^\d{2}:\d{2}$/.test(text.trim()) ? `${text.trim()}:00` : text;
}

/** One item's value as ODM writes it, or null when it is blank or withheld. */
export function odmItemValue(
  node: CrfNode | undefined,
  value: unknown,
  values: Readonly<Record<string, unknown>>,
  options: OdmValueOptions = {},
): string | null {
  if (isEmptyValue(value)) return null;
  if (node && (node.type === 'date' || node.type === 'datetime' || node.type === 'partialDate')) {
    const shifted = options.shiftDays == null ? String(value) : shiftDate(String(value), options.shiftDays);
    return shifted === null ? null : odmDateValue(shifted, dateFormatOf(node));
  }
  if (node?.type === 'time') return odmTimeValue(String(value));
  if (node && isUploadItem(node)) return valueText(node, value, values, { fileNames: options.fileNames }) || null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** An item's ItemData: one per option of a multiple choice (1 chosen, 0 not), else its value. */
function itemData(
  place: OdmItemPlace,
  node: CrfNode | undefined,
  value: unknown,
  values: Readonly<Record<string, unknown>>,
  options: OdmValueOptions,
): Array<{ itemOid: string; value: string }> {
  if (place.choiceOids) {
    if (isEmptyValue(value)) return [];
    const chosen = new Set(readChoiceList(value));
    return [...place.choiceOids].map(([code, itemOid]) => ({ itemOid, value: chosen.has(code) ? '1' : '0' }));
  }
  const written = odmItemValue(node, value, values, options);
  return written === null ? [] : [{ itemOid: place.itemOid, value: written }];
}

/**
 * One record's values as ItemGroupData against its form's layout (odmMetadata): an ItemGroupData per group
 * with values, one per row of a list group or table. `nodes` are the form's named nodes (nodesByName).
 */
export function odmRecordGroups(
  layout: OdmFormLayout,
  nodes: ReadonlyMap<string, CrfNode>,
  values: Readonly<Record<string, unknown>>,
  options: OdmValueOptions = {},
): OdmItemGroupData[] {
  const groups = new Map<string, Array<{ itemOid: string; value: string }>>();
  for (const [key, place] of layout.items) {
    const written = itemData(place, nodes.get(key), values[key], values, options);
    if (written.length === 0) continue;
    const group = groups.get(place.groupOid) ?? [];
    group.push(...written);
    groups.set(place.groupOid, group);
  }
  const out: OdmItemGroupData[] = [...groups].map(([groupOid, items]) => ({ groupOid, items }));
  for (const [name, rowGroup] of layout.rowGroups) {
    const rowNode = nodes.get(name);
    readRows(values[name]).forEach((row, r) => {
      const items = [...rowGroup.items].flatMap(([key, place]) =>
        itemData(
          place,
          rowNode?.children.find((c) => c.name === key),
          row[key],
          row,
          options,
        ),
      );
      if (items.length > 0) out.push({ groupOid: rowGroup.groupOid, repeatKey: r + 1, items });
    });
  }
  return out;
}
