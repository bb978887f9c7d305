import { GENDER, type AuditEvent } from '../../../api/subject.api';
import type { Disease } from '../../../api/study.api';
import { T } from '../../../locales/zh-CN';
import { stateLabel } from './subject-state';

/** What the operates drawer knows to put words on an audit row. */
export interface OperateContext {
  /** Patient field name → the study's label for it (base config headers). */
  fieldLabels: Record<string, string>;
  diseases: readonly Disease[];
  /** CRF id → title. */
  crfTitles: ReadonlyMap<number, string>;
}

const EMPTY = '（空）';

/** The action of an audit row in Chinese words; an action this page does not know keeps its code. */
export function actionLabel(action: string): string {
  return T.subject.actions[action] ?? action;
}

function crfTitle(event: AuditEvent, ctx: OperateContext): string {
  if (event.crfId === null) return '';
  return ctx.crfTitles.get(event.crfId) ?? T.subject.crfOf(event.crfId);
}

/** The row's subject: a patient field, the state, or the form (and item) it touched. */
export function operateItem(event: AuditEvent, ctx: OperateContext): string {
  if (event.action === 'subject.update' && event.itemName) return ctx.fieldLabels[event.itemName] ?? event.itemName;
  if (event.action === 'subject.state') return T.subject.state;
  const form = crfTitle(event, ctx);
  if (form && event.itemName) return `${form} / ${event.itemName}`;
  return form || event.itemName || '';
}

function text(value: unknown): string {
  if (value === undefined || value === null || value === '') return EMPTY;
  if (Array.isArray(value)) return value.length === 0 ? EMPTY : value.map((v) => text(v)).join('、');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** A patient field's stored value in words: 男/女, the disease's name, the state's name. */
function fieldValue(field: string | null, value: unknown, ctx: OperateContext): string {
  if (value === undefined || value === null || value === '') return EMPTY;
  if (field === 'gender') {
    return value === GENDER.male ? T.sex.male : value === GENDER.female ? T.sex.female : text(value);
  }
  if (field === 'diseaseCode') return ctx.diseases.find((d) => d.diseaseCode === value)?.diseaseName ?? text(value);
  if (field === 'state') return stateLabel(value);
  return text(value);
}

/** The patient as entered at enrolment, field by field in the study's words. */
function enrolmentSummary(value: unknown, ctx: OperateContext): string {
  if (typeof value !== 'object' || value === null) return text(value);
  const fields = value as Record<string, unknown>;
  return ['identificationCode', 'subjectName', 'gender', 'birth', 'mobile', 'idNumber', 'diseaseCode']
    .filter((name) => fields[name] !== undefined && fields[name] !== null && fields[name] !== '')
    .map((name) => `${ctx.fieldLabels[name] ?? name}：${fieldValue(name, fields[name], ctx)}`)
    .join('；');
}

/** The change a row records, as "old → new"; rows without values (delete, restore, submit) show nothing. */
export function operateChange(event: AuditEvent, ctx: OperateContext): string {
  if (event.action === 'subject.create') return enrolmentSummary(event.newValue, ctx);
  const hasOld = event.oldValue !== null && event.oldValue !== undefined;
  const hasNew = event.newValue !== null && event.newValue !== undefined;
  if (!hasOld && !hasNew) return '';
  if (event.action === 'subject.update' || event.action === 'subject.state') {
    const field = event.action === 'subject.state' ? 'state' : event.itemName;
    return `${fieldValue(field, event.oldValue, ctx)} → ${fieldValue(field, event.newValue, ctx)}`;
  }
  if (event.action === 'item.update') return `${text(event.oldValue)} → ${text(event.newValue)}`;
  // Whole-record snapshots (a deleted form's values, signature ids) are kept in the trail, not shown here.
  return '';
}
