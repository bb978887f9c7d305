import { useMemo, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Modal, Segmented, Select, Space, Spin, Switch, Typography } from 'antd';
import { initialValues, type CrfDefinition } from '@ecrf/core';
import { crfApi } from '../../../../api/study.api';
import { CrfForm } from '../../../../crf';
import { STUDY_CRF_TEXT } from '../../../../locales/study-crf.zh-CN';
import { CrfOutline } from './crf-outline';
import { queryKeys } from '../../../../api/query-keys';

export interface CrfPreviewTarget {
  crfId: number;
  title: string;
  version?: number;
}

type View = 'form' | 'outline';

/**
 * The form as staff will see it, read-only; 试填 lets the designer type into it to try skip logic
 * and calculations (nothing is saved). The outline lists every node with its type and name.
 */
function FormPreview({ definition }: { definition: CrfDefinition }) {
  const [trying, setTrying] = useState(false);
  const start = useMemo(() => initialValues(definition, { now: new Date() }), [definition]);
  const [values, setValues] = useState<Record<string, unknown>>(start);
  return (
    <>
      <Space style={{ marginBottom: 12 }}>
        <Switch
          size="small"
          aria-label={STUDY_CRF_TEXT.tryOut}
          checked={trying}
          onChange={(on) => {
            setTrying(on);
            setValues(start);
          }}
        />
        <span>{STUDY_CRF_TEXT.tryOut}</span>
        <Typography.Text type="secondary">{STUDY_CRF_TEXT.tryOutHint}</Typography.Text>
      </Space>
      <div className="crf-preview-form">
        <CrfForm definition={definition} values={values} readOnly={!trying} onChange={(next) => setValues(next)} />
      </div>
    </>
  );
}

/** CRF预览: one version of a CRF, as a form or as its outline, any version selectable. */
export function CrfPreviewDialog({ target, onClose }: { target: CrfPreviewTarget | null; onClose: () => void }) {
  const [picked, setPicked] = useState<number | undefined>(undefined);
  const [view, setView] = useState<View>('form');
  const [openedFor, setOpenedFor] = useState(target);
  if (openedFor !== target) {
    setOpenedFor(target);
    setPicked(undefined);
  }
  const version = picked ?? target?.version;

  const detail = useQuery({
    queryKey: queryKeys.crf.detail(target?.crfId, version),
    enabled: Boolean(target),
    placeholderData: keepPreviousData,
    queryFn: () => crfApi.get(target!.crfId, version).then((res) => res.data),
  });
  const data = detail.data?.id === target?.crfId ? detail.data : undefined;

  return (
    <Modal
      open={Boolean(target)}
      title={STUDY_CRF_TEXT.previewTitle(target?.title ?? '')}
      onCancel={onClose}
      footer={null}
      width="80%"
      style={{ top: 40 }}
      destroyOnHidden
    >
      <Space style={{ marginBottom: 12 }} wrap size="middle">
        <Segmented<View>
          value={view}
          onChange={setView}
          options={[
            { value: 'form', label: STUDY_CRF_TEXT.viewForm },
            { value: 'outline', label: STUDY_CRF_TEXT.viewOutline },
          ]}
        />
        <span>
          {STUDY_CRF_TEXT.version}
          <Select
            aria-label={STUDY_CRF_TEXT.version}
            value={data?.version}
            style={{ width: 140, marginLeft: 8 }}
            options={(data?.versions ?? []).map((v) => ({
              value: v.version,
              label: STUDY_CRF_TEXT.versionOf(v.version),
            }))}
            onChange={(value: number) => setPicked(value)}
          />
        </span>
      </Space>
      <Spin spinning={detail.isFetching}>
        {!data ? (
          <div style={{ minHeight: 200 }} />
        ) : view === 'form' ? (
          <FormPreview key={`${data.id}-${data.version}`} definition={data.definition} />
        ) : (
          <CrfOutline definition={data.definition} />
        )}
      </Spin>
    </Modal>
  );
}
