import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Modal, Select, Space, Spin, Typography } from 'antd';
import { crfApi } from '../../../../api/study.api';
import { T } from '../../../../locales/zh-CN';
import { CrfOutline } from './crf-outline';

export interface CrfPreviewTarget {
  crfId: number;
  title: string;
  version?: number;
}

/** CRF预览: a read-only view of one version of a CRF, any version selectable. */
export function CrfPreviewDialog({ target, onClose }: { target: CrfPreviewTarget | null; onClose: () => void }) {
  const [picked, setPicked] = useState<number | undefined>(undefined);
  const [openedFor, setOpenedFor] = useState(target);
  if (openedFor !== target) {
    setOpenedFor(target);
    setPicked(undefined);
  }
  const version = picked ?? target?.version;

  const detail = useQuery({
    queryKey: ['crf', 'detail', target?.crfId, version ?? 'latest'],
    enabled: Boolean(target),
    placeholderData: keepPreviousData,
    queryFn: () => crfApi.get(target!.crfId, version).then((res) => res.data),
  });
  const data = detail.data?.id === target?.crfId ? detail.data : undefined;

  return (
    <Modal
      open={Boolean(target)}
      title={T.studyCrf.previewTitle(target?.title ?? '')}
      onCancel={onClose}
      footer={null}
      width="80%"
      style={{ top: 40 }}
      destroyOnHidden
    >
      <Space style={{ marginBottom: 12 }} wrap>
        <span>{T.studyCrf.version}</span>
        <Select
          aria-label={T.studyCrf.version}
          value={data?.version}
          style={{ width: 160 }}
          options={(data?.versions ?? []).map((v) => ({ value: v.version, label: T.studyCrf.versionOf(v.version) }))}
          onChange={(value: number) => setPicked(value)}
        />
        <Typography.Text type="secondary">{T.studyCrf.outlineNote}</Typography.Text>
      </Space>
      <Spin spinning={detail.isFetching}>
        {data ? <CrfOutline definition={data.definition} /> : <div style={{ minHeight: 200 }} />}
      </Spin>
    </Modal>
  );
}
