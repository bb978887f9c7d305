import { Tag } from 'antd';
import { SUBJECT_STATE, type SubjectState } from '../../../api/subject.api';
import { SUBJECT_TEXT } from '../../../locales/subject.zh-CN';

export const STATE_VALUES: readonly SubjectState[] = [
  SUBJECT_STATE.active,
  SUBJECT_STATE.completed,
  SUBJECT_STATE.withdrawn,
];

export function stateLabel(state: unknown): string {
  return typeof state === 'number' ? (SUBJECT_TEXT.states[state] ?? String(state)) : '';
}

export const STATE_OPTIONS = STATE_VALUES.map((value) => ({ value, label: stateLabel(value) }));

const COLORS: Record<SubjectState, string> = {
  [SUBJECT_STATE.active]: 'processing',
  [SUBJECT_STATE.completed]: 'success',
  [SUBJECT_STATE.withdrawn]: 'warning',
};

export function StateTag({ state }: { state: SubjectState }) {
  return <Tag color={COLORS[state] ?? 'default'}>{stateLabel(state)}</Tag>;
}
