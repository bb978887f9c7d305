import { useQuery } from '@tanstack/react-query';
import { Spin, Tabs } from 'antd';
import { studyApi, type Study } from '../../../api/study.api';
import { STUDY_CONFIG_TEXT } from '../../../locales/study-config.zh-CN';
import { StudyScope } from '../components/study-scope';
import { BasicInfoForm } from './components/basic-info-form';
import { DiseasePanel } from './components/disease-panel';
import { FeaturesPanel } from './components/features-panel';
import { LocksPanel } from './components/locks-panel';
import { GoLivePanel } from './components/golive-panel';
import { LIFECYCLE_TEXT } from '../../../locales/lifecycle.zh-CN';
import { PatientPanel } from './components/patient-panel';
import { LOCK_TEXT } from '../../../locales/lock.zh-CN';
import '../study.css';
import { queryKeys } from '../../../api/query-keys';
import { useSearchParams } from 'react-router';
import { AMENDMENT_TEXT } from '../../../locales/amendment.zh-CN';
import { AmendmentsPanel } from '../amendment/amendments-panel';
import { SAFETY_TEXT } from '../../../locales/safety.zh-CN';
import { SafetyPanel } from './components/safety-panel';
import { MISSING_CODES_TEXT } from '../../../locales/missing-codes.zh-CN';
import { MissingCodesPanel } from './components/missing-codes-panel';
import { LAB_RANGES_TEXT } from '../../../locales/lab-ranges.zh-CN';
import { LabRangesPanel } from './components/lab-ranges-panel';
import { MESSAGES_TEXT } from '../../../locales/messages.zh-CN';
import { MessageRulesPanel } from './components/message-rules-panel';

function StudyConfig({ picked }: { picked: Study }) {
  // The picker's list may be older than the study itself: the page edits the fresh detail.
  const detail = useQuery({
    queryKey: queryKeys.study.detail(picked.id),
    queryFn: () => studyApi.get(picked.id).then((res) => res.data),
  });
  const study = detail.data;
  // ?tab= opens a tab directly (the impact report's 返回 opens 方案修订).
  const [params] = useSearchParams();
  if (!study) return <Spin style={{ display: 'block', margin: '48px auto' }} />;
  return (
    <Tabs
      defaultActiveKey={params.get('tab') ?? undefined}
      items={[
        { key: 'basic', label: STUDY_CONFIG_TEXT.tabBasic, children: <BasicInfoForm study={study} /> },
        { key: 'disease', label: STUDY_CONFIG_TEXT.tabDisease, children: <DiseasePanel studyId={study.id} /> },
        { key: 'patient', label: STUDY_CONFIG_TEXT.tabPatient, children: <PatientPanel study={study} /> },
        { key: 'features', label: STUDY_CONFIG_TEXT.tabFeatures, children: <FeaturesPanel study={study} /> },
        { key: 'safety', label: SAFETY_TEXT.tab, children: <SafetyPanel study={study} /> },
        { key: 'missing', label: MISSING_CODES_TEXT.tab, children: <MissingCodesPanel study={study} /> },
        { key: 'labRanges', label: LAB_RANGES_TEXT.tab, children: <LabRangesPanel study={study} /> },
        { key: 'messages', label: MESSAGES_TEXT.tab, children: <MessageRulesPanel study={study} /> },
        { key: 'locks', label: LOCK_TEXT.tab, children: <LocksPanel study={study} /> },
        { key: 'golive', label: LIFECYCLE_TEXT.tab, children: <GoLivePanel study={study} /> },
        { key: 'amendments', label: AMENDMENT_TEXT.tab, children: <AmendmentsPanel studyId={study.id} /> },
      ]}
    />
  );
}

/** 项目配置 (STUDY-02, STUDY-06, STUDY-10..13, STUDY-23..26): one study's settings. */
export default function StudyConfigPage() {
  return (
    <StudyScope title={STUDY_CONFIG_TEXT.title}>{(study) => <StudyConfig key={study.id} picked={study} />}</StudyScope>
  );
}
