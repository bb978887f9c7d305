import type { CrfDefinition, CrfNode } from '../crf/crf-definition.schema.js';
import {
  AE_ACTIONS,
  AE_CAUSALITY,
  AE_GRADES,
  AE_OUTCOMES,
  AE_SERIOUS_NO,
  AE_SERIOUS_YES,
  AE_SERIOUSNESS_CRITERIA,
} from './vocabulary.js';

/** The title of the AE log form the module creates in a study (a free title is chosen beside a form of that name). */
export const AE_FORM_TITLE = '不良事件记录';

/** The AE log's item names the safety module reads (the SAE report's fields). */
export const AE_ITEMS = {
  term: 'ae_term',
  start: 'ae_start',
  end: 'ae_end',
  grade: 'ae_grade',
  serious: 'ae_serious',
  criteria: 'ae_criteria',
  aware: 'ae_aware',
  causality: 'ae_causality',
  action: 'ae_action',
  outcome: 'ae_outcome',
} as const;

const choices = (pairs: readonly (readonly [string, string])[]) => ({
  optionsValue: pairs.map(([code]) => code).join(','),
  optionsText: pairs.map(([, label]) => label).join(','),
});

const item = (name: string, title: string, type: CrfNode['type'], option: CrfNode['option'] = {}): CrfNode => ({
  name,
  title,
  type,
  option,
  children: [],
});

const SERIOUS = `${AE_ITEMS.serious} == "${AE_SERIOUS_YES}"`;

/**
 * The AE log (不良事件记录): one record per event. The module places it in a stage as a repeatable form, so a patient
 * has as many records as events. The seriousness criteria and the awareness time show (and are required) only for a
 * serious event; the awareness time starts the 24-hour clock, so it cannot lie in the future.
 */
export function aeFormDefinition(): CrfDefinition {
  return {
    title: AE_FORM_TITLE,
    option: { cols: 2 },
    children: [
      item(AE_ITEMS.term, '不良事件名称', 'input', { required: 1 }),
      item(AE_ITEMS.start, '开始日期', 'date', { required: 1, format: 'yyyy-MM-dd', showStyle: 'pastTime' }),
      item(AE_ITEMS.end, '结束日期', 'date', { format: 'yyyy-MM-dd' }),
      item(AE_ITEMS.grade, '严重程度（CTCAE分级）', 'radio', { required: 1, ...choices(AE_GRADES) }),
      item(AE_ITEMS.serious, '是否严重', 'radio', {
        required: 1,
        ...choices([
          [AE_SERIOUS_YES, '是'],
          [AE_SERIOUS_NO, '否'],
        ]),
      }),
      item(AE_ITEMS.criteria, '严重性标准', 'checkbox', {
        required: 1,
        showIf: SERIOUS,
        ...choices(AE_SERIOUSNESS_CRITERIA),
      }),
      item(AE_ITEMS.aware, '研究者获知时间', 'datetime', {
        required: 1,
        showIf: SERIOUS,
        format: 'yyyy-MM-dd HH:mm',
        showStyle: 'pastTime',
      }),
      item(AE_ITEMS.causality, '与研究药物的关系', 'radio', { required: 1, ...choices(AE_CAUSALITY) }),
      item(AE_ITEMS.action, '对研究药物采取的措施', 'radio', { ...choices(AE_ACTIONS) }),
      item(AE_ITEMS.outcome, '转归', 'radio', { ...choices(AE_OUTCOMES) }),
    ],
  };
}
