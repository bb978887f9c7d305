import type { CSSProperties } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Tag, Tooltip } from 'antd';
import type { StudyMode } from '../api/lifecycle.api';
import { queryKeys } from '../api/query-keys';
import { studyApi } from '../api/study.api';
import { LIFECYCLE_TEXT } from '../locales/lifecycle.zh-CN';
import './test-data-tag.css';

/** 测试: the mark of test data (a study in 测试, a test patient, a test randomization), with what it means. */
export function TestDataTag({ tip, style }: { tip: string; style?: CSSProperties }) {
  return (
    <Tooltip title={tip}>
      <Tag color="orange" className="test-data-tag" style={{ marginInlineEnd: 0, ...style }}>
        {LIFECYCLE_TEXT.testTag}
      </Tag>
    </Tooltip>
  );
}

/** Beside a study's name: 测试 while the study is in 测试; nothing once it went live. */
export function StudyModeTag({ mode }: { mode: StudyMode | undefined }) {
  return mode === 'test' ? <TestDataTag tip={LIFECYCLE_TEXT.testStudyTip} /> : null;
}

/** The open study's 测试 tag (the top bar): its detail, read once and shared with the project pages. */
export function OpenStudyModeTag({ studyId }: { studyId: number }) {
  const study = useQuery({
    queryKey: queryKeys.study.detail(studyId),
    enabled: studyId > 0,
    queryFn: () => studyApi.get(studyId).then((res) => res.data),
  }).data;
  return <StudyModeTag mode={study?.mode} />;
}

/** Beside a patient's code: 测试 for a test patient. */
export function TestPatientTag({ test }: { test: boolean | undefined }) {
  return test ? <TestDataTag tip={LIFECYCLE_TEXT.testPatientTip} /> : null;
}

/** Beside a randomization number (T0001): 测试 for a test randomization. */
export function TestRandomizationTag({ test }: { test: boolean | undefined }) {
  return test ? <TestDataTag tip={LIFECYCLE_TEXT.testRandomizationTip} /> : null;
}
