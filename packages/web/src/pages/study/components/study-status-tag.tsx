import { Tag } from 'antd';
import { STUDY_STATUS } from '../../../api/study.api';
import { T } from '../../../locales/zh-CN';

/** The server takes codes of letters, digits, _ and - only (they appear in exports and file names). */
export const STUDY_CODE_PATTERN = /^[A-Za-z0-9_-]+$/;

export const STUDY_STATUS_OPTIONS = [
  { value: STUDY_STATUS.ongoing, label: T.study.statusOngoing },
  { value: STUDY_STATUS.finished, label: T.study.statusFinished },
];

export function StudyStatusTag({ status }: { status: number }) {
  return status === STUDY_STATUS.finished ? (
    <Tag>{T.study.statusFinished}</Tag>
  ) : (
    <Tag color="processing">{T.study.statusOngoing}</Tag>
  );
}
