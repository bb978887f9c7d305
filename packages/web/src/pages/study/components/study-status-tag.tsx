import { Tag } from 'antd';
import { STUDY_STATUS } from '../../../api/study.api';
import { STUDY_TEXT } from '../../../locales/study.zh-CN';

/** The server takes codes of letters, digits, _ and - only (they appear in exports and file names). */
export const STUDY_CODE_PATTERN = /^[A-Za-z0-9_-]+$/;

export const STUDY_STATUS_OPTIONS = [
  { value: STUDY_STATUS.ongoing, label: STUDY_TEXT.statusOngoing },
  { value: STUDY_STATUS.finished, label: STUDY_TEXT.statusFinished },
];

export function StudyStatusTag({ status }: { status: number }) {
  return status === STUDY_STATUS.finished ? (
    <Tag>{STUDY_TEXT.statusFinished}</Tag>
  ) : (
    <Tag color="processing">{STUDY_TEXT.statusOngoing}</Tag>
  );
}
