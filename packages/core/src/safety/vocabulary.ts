/**
 * The adverse-event vocabulary (不良事件, issue 37): codes stored in the AE log form and their Chinese labels, in
 * the order the form and the SAE report show them. Codes are short ASCII so that exports and expressions stay
 * stable when a label's wording is revised.
 */

/** Seriousness criteria (ICH E2A; NMPA 严重不良事件报告表): any one makes an event serious. */
export const AE_SERIOUSNESS_CRITERIA = [
  ['death', '导致死亡'],
  ['life', '危及生命'],
  ['hosp', '导致住院或住院时间延长'],
  ['disab', '导致永久或显著的残疾/功能丧失'],
  ['congen', '先天性异常/出生缺陷'],
  ['other', '其他重要医学事件'],
] as const;

/** CTCAE severity grades 1–5. */
export const AE_GRADES = [
  ['1', '1级 轻度'],
  ['2', '2级 中度'],
  ['3', '3级 重度'],
  ['4', '4级 危及生命'],
  ['5', '5级 死亡'],
] as const;

/** The investigator's causality assessment (the Chinese five-point scale plus 无法评价). */
export const AE_CAUSALITY = [
  ['certain', '肯定有关'],
  ['probable', '很可能有关'],
  ['possible', '可能有关'],
  ['unlikely', '可能无关'],
  ['unrelated', '肯定无关'],
  ['unassessable', '无法评价'],
] as const;

/** Action taken with the study treatment. */
export const AE_ACTIONS = [
  ['none', '剂量不变'],
  ['reduced', '减少剂量'],
  ['interrupted', '暂停用药'],
  ['withdrawn', '停止用药'],
  ['na', '不适用'],
] as const;

/** The event's outcome. */
export const AE_OUTCOMES = [
  ['recovered', '痊愈'],
  ['recovering', '好转'],
  ['not_recovered', '未好转'],
  ['sequelae', '痊愈伴后遗症'],
  ['fatal', '死亡'],
  ['unknown', '未知'],
] as const;

/** 是否严重: the stored codes of 是 and 否. */
export const AE_SERIOUS_YES = '1';
export const AE_SERIOUS_NO = '0';

type Pairs = readonly (readonly [string, string])[];

/** The label of a code in one of the lists above; the code itself when it is not one (a value from an old version). */
export function aeLabel(pairs: Pairs, code: string): string {
  return pairs.find(([c]) => c === code)?.[1] ?? code;
}
