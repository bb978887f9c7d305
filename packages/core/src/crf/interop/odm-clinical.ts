import { XMLParser } from 'fast-xml-parser';
import { attr, content, list, type XmlNode } from './odm-xml.js';

/**
 * CDISC ODM 1.3.2 ClinicalData: the data export writes it after the metadata of odm.ts (whose OIDs it uses),
 * one SubjectData at a time so a study of any size streams; the reader gives the values back, for tests and
 * for anyone checking a file against the metadata. Values are written as stored (codes, ISO dates); a
 * multiple choice is its codes joined by commas, as ODM has no multi-valued item.
 */

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const escAttr = (s: string) => esc(s).replace(/\r/g, '&#13;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');

export interface OdmItemGroupData {
  groupOid: string;
  /** A repeating group's row number (1, 2, …). */
  repeatKey?: number;
  items: ReadonlyArray<{ itemOid: string; value: string }>;
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
          out.push(`<ItemData ItemOID="${escAttr(item.itemOid)}" Value="${escAttr(item.value)}"/>`);
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
