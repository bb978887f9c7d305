import { SUBJECT_IDENTIFIER_FIELDS } from '../subject.js';
import type { CrfNode } from './crf-definition.schema.js';
import { isOn } from './options.js';

/**
 * PIPL: what a reader without 查看患者身份信息 gets instead of a filled value of an identifier item (option
 * `identifier`, REDCap's "Identifier?"). One fixed text whatever the value, its type or its length: an item's kind
 * of identifier is not known (a free text can hold a name, an address or a hospital number), so no partial mask
 * (as for the patient's own name or mobile) would be safe for all of them. The save recognises it as "unchanged".
 */
export const IDENTIFIER_MASK = '******';

export const isIdentifierMask = (value: unknown): value is typeof IDENTIFIER_MASK => value === IDENTIFIER_MASK;

/** The patient fields masked in the patient's own answers (name, birth date, mobile, ID number). */
const IDENTIFYING_PATIENT_FIELDS: ReadonlySet<string> = new Set(SUBJECT_IDENTIFIER_FIELDS);

/**
 * Whether an item's values identify a person (a column of a list group or table too: its own flag decides): flagged
 * `identifier`, or holding one of the patient's identifiers (`patientField` subjectName, birth, mobile, idNumber),
 * which the patient list masks: 人口学资料's 出生日期 would otherwise show in clear what the list hides.
 */
export const isIdentifierItem = (node: Pick<CrfNode, 'option'>): boolean =>
  isOn(node.option.identifier) ||
  (typeof node.option.patientField === 'string' && IDENTIFYING_PATIENT_FIELDS.has(node.option.patientField));
