import { signatureTime } from '../signature-text.js';
import { AE_ITEMS } from './ae-form.js';
import { AE_ACTIONS, AE_CAUSALITY, AE_GRADES, AE_OUTCOMES, AE_SERIOUSNESS_CRITERIA, aeLabel } from './vocabulary.js';

/**
 * What an exported SAE report says (issue 37): the NMPA 严重不良事件报告表 and a CIOMS-I-like English form, filled
 * from one report version. Every field the platform does not hold (the sponsor, the drug, dose, route, history,
 * the narrative, the reporter's title and signature) is an empty string: the reporter writes it in by hand; an
 * export never guesses it. Pure: the server reads the rows, this decides what each box says.
 */

const CHECKED = '☑';
const UNCHECKED = '☐';
const box = (on: boolean) => (on ? CHECKED : UNCHECKED);
/** A row of boxes: `☑首次报告 ☐随访报告 ☐总结报告`. */
const boxes = (options: readonly (readonly [boolean, string])[]) =>
  options.map(([on, label]) => `${box(on)}${label}`).join('  ');

export interface SaeReportSource {
  /** The AE record's values the version reports: the submitted content, or the record as it is while pending. */
  values: Readonly<Record<string, unknown>>;
  kind: 'initial' | 'followup';
  version: number;
  /** When the version was submitted (its report date); null while pending. */
  submittedAt: Date | string | null;
  timeZone: string;
  studyName: string;
  studyCode: string;
  siteName: string | null;
  identificationCode: string;
  /** The patient's name already masked (张*): a report leaves the site and never carries the name. */
  maskedName: string;
  /** 1 male, 2 female (subjects.gender); anything else is left blank. */
  gender: number | null;
  /** As the caller may see it: the clear date, or 1960-**-** without 查看患者身份信息. */
  birth: string | null;
  age: number | null;
  /** 身高(cm)、体重(kg) from the patient's records by sae-patient-measures.ts's rule; absent or null: blank. */
  measures?: { height: string | null; weight: string | null };
  /** The AE term's approved MedDRA coding (医学编码) when the term printed is the one coded; absent: none printed. */
  coding?: SaeTermCoding | null;
}

/** The coded terms printed beside the verbatim term: PT and primary SOC, with the dictionary's version. */
export interface SaeTermCoding {
  version: string;
  ptCode: string;
  ptName: string;
  socCode: string;
  socName: string;
}

/** The line under the verbatim term: `MedDRA 27.0 PT：肺炎（10035664）；SOC：感染及侵染类疾病（10021881）`. */
const codingLine = (c: SaeTermCoding, english: boolean) => {
  const dictionary = c.version ? `MedDRA ${c.version}` : 'MedDRA';
  const soc = c.socName ? (english ? `; SOC: ${c.socName} (${c.socCode})` : `；SOC：${c.socName}（${c.socCode}）`) : '';
  return english
    ? `${dictionary} PT: ${c.ptName} (${c.ptCode})${soc}`
    : `${dictionary} PT：${c.ptName}（${c.ptCode}）${soc}`;
};

/** The verbatim term, with its coded terms on the next line when it is coded and approved. */
const termWithCoding = (s: SaeReportSource, english: boolean) => {
  const term = text(s.values[AE_ITEMS.term]);
  return s.coding && term ? `${term}\n${codingLine(s.coding, english)}` : term;
};

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v).trim());
const codes = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : v ? [String(v)] : []);

/** The report's date in the study's zone (yyyy-MM-dd HH:mm), blank until it is submitted. */
const reportDate = (s: SaeReportSource) => (s.submittedAt ? signatureTime(s.submittedAt, s.timeZone) : '');

/**
 * The NMPA form's boxes where the platform's vocabulary pairs two of its boxes in one criterion (ICH E2A:
 * 导致住院或住院时间延长, 残疾/功能丧失): the pair prints as one box, so a ticked box never claims more than was
 * recorded.
 */
const NMPA_SERIOUSNESS = [
  ['death', '死亡'],
  ['hosp', '导致住院/延长住院时间'],
  ['disab', '伤残/功能障碍'],
  ['congen', '导致先天畸形'],
  ['life', '危及生命'],
  ['other', '其它'],
] as const;

/** The tags of the NMPA 严重不良事件报告表 template, each a string (a box row or a value, blank when not held). */
export function nmpaReportFields(s: SaeReportSource): Record<string, string> {
  const v = s.values;
  const criteria = codes(v[AE_ITEMS.criteria]);
  const choice = (pairs: readonly (readonly [string, string])[], code: unknown) =>
    boxes(pairs.map(([c, label]) => [c === text(code), label] as const));
  return {
    studyName: s.studyName,
    studyCode: s.studyCode,
    identificationCode: s.identificationCode,
    version: String(s.version),
    reportType: boxes([
      [s.kind === 'initial', '首次报告'],
      [s.kind === 'followup', '随访报告'],
      // The platform has no summary report (总结报告): the box stays for the reporter.
      [false, '总结报告'],
    ]),
    reportTime: reportDate(s),
    institution: s.siteName ?? '',
    specialty: '',
    sponsor: '',
    drugNameCn: '',
    drugNameEn: '',
    drugCategory: '',
    dosageForm: '',
    studyCategory: '',
    indication: '',
    initials: s.maskedName,
    gender: boxes([
      [s.gender === 1, '男'],
      [s.gender === 2, '女'],
    ]),
    birth: s.birth ?? '',
    height: s.measures?.height ?? '',
    weight: s.measures?.weight ?? '',
    comorbidity: '',
    term: termWithCoding(s, false),
    seriousness: boxes(NMPA_SERIOUSNESS.map(([code, label]) => [criteria.includes(code), label] as const)),
    deathDate: '',
    onset: text(v[AE_ITEMS.start]),
    aware: text(v[AE_ITEMS.aware]),
    action: choice(AE_ACTIONS, v[AE_ITEMS.action]),
    outcome: choice(AE_OUTCOMES, v[AE_ITEMS.outcome]),
    causality: choice(AE_CAUSALITY, v[AE_ITEMS.causality]),
    reportedDomestic: boxes([
      [false, '有'],
      [false, '无'],
      [false, '不详'],
    ]),
    reportedAbroad: boxes([
      [false, '有'],
      [false, '无'],
      [false, '不详'],
    ]),
    details: '',
    reportingUnit: '',
    reporterTitle: '',
    reporterSignature: '',
  };
}

/** CIOMS I seriousness boxes (8–12) and the two E2A criteria the CIOMS form folds into "other". */
const CIOMS_SERIOUSNESS = [
  ['death', 'Patient died'],
  ['hosp', 'Involved or prolonged inpatient hospitalisation'],
  ['disab', 'Involved persistence or significant disability or incapacity'],
  ['life', 'Life threatening'],
  ['congen', 'Congenital anomaly / birth defect'],
  ['other', 'Other medically important condition'],
] as const;

/** The tags of the CIOMS-I-like English form: English labels in the template, values as stored. */
export function ciomsReportFields(s: SaeReportSource): Record<string, string> {
  const v = s.values;
  const criteria = codes(v[AE_ITEMS.criteria]);
  const label = (pairs: readonly (readonly [string, string])[], code: unknown) =>
    text(code) ? aeLabel(pairs, text(code)) : '';
  const description = [
    termWithCoding(s, true),
    s.measures?.height && `Height: ${s.measures.height} cm`,
    s.measures?.weight && `Weight: ${s.measures.weight} kg`,
    label(AE_GRADES, v[AE_ITEMS.grade]) && `CTCAE grade: ${label(AE_GRADES, v[AE_ITEMS.grade])}`,
    criteria.length > 0 && `Seriousness: ${criteria.map((c) => aeLabel(AE_SERIOUSNESS_CRITERIA, c)).join(', ')}`,
    text(v[AE_ITEMS.end]) && `End date: ${text(v[AE_ITEMS.end])}`,
    label(AE_OUTCOMES, v[AE_ITEMS.outcome]) && `Outcome: ${label(AE_OUTCOMES, v[AE_ITEMS.outcome])}`,
    label(AE_CAUSALITY, v[AE_ITEMS.causality]) &&
      `Investigator causality: ${label(AE_CAUSALITY, v[AE_ITEMS.causality])}`,
    text(v[AE_ITEMS.aware]) && `Investigator aware: ${text(v[AE_ITEMS.aware])}`,
  ].filter((line): line is string => Boolean(line));
  return {
    studyName: s.studyName,
    studyCode: s.studyCode,
    identificationCode: s.identificationCode,
    version: String(s.version),
    initials: s.maskedName,
    country: '',
    birth: s.birth ?? '',
    age: s.age === null ? '' : String(s.age),
    sex: s.gender === 1 ? 'M' : s.gender === 2 ? 'F' : '',
    onset: text(v[AE_ITEMS.start]),
    seriousness: CIOMS_SERIOUSNESS.map(([code, name]) => `${box(criteria.includes(code))} ${name}`).join('\n'),
    description: description.join('\n'),
    suspectDrugs: '',
    dailyDose: '',
    route: '',
    indication: '',
    therapyDates: '',
    therapyDuration: '',
    action: label(AE_ACTIONS, v[AE_ITEMS.action]),
    dechallenge: '',
    rechallenge: '',
    concomitantDrugs: '',
    history: '',
    manufacturer: '',
    reporter: s.siteName ?? '',
    reportSource: `${CHECKED} Study  ${UNCHECKED} Literature  ${UNCHECKED} Health professional`,
    reportType: `${box(s.kind === 'initial')} Initial  ${box(s.kind === 'followup')} Follow-up`,
    reportDate: reportDate(s),
  };
}
