import { useQuery } from '@tanstack/react-query';
import { Button, Modal, Space, Table, Tag, type TableColumnsType } from 'antd';
import { crfApi, type CrfVersion } from '../../../../api/study.api';
import { AMENDMENT_TEXT } from '../../../../locales/amendment.zh-CN';
import { COMMON_TEXT } from '../../../../locales/common.zh-CN';
import { STUDY_CRF_TEXT } from '../../../../locales/study-crf.zh-CN';
import { formatDate } from '../../../../utils/format-date';
import { queryKeys } from '../../../../api/query-keys';

export interface CrfVersionsTarget {
  crfId: number;
  title: string;
}

interface CrfVersionsDialogProps {
  target: CrfVersionsTarget | null;
  sourceLabel: (source: string) => string;
  onPreview: (version: number) => void;
  onExport: (version: number) => void;
  onClose: () => void;
}

/** 版本记录: every uploaded version of a CRF, newest first, each viewable and exportable. */
export function CrfVersionsDialog({ target, sourceLabel, onPreview, onExport, onClose }: CrfVersionsDialogProps) {
  const detail = useQuery({
    queryKey: queryKeys.crf.detail(target?.crfId),
    enabled: Boolean(target),
    queryFn: () => crfApi.get(target!.crfId).then((res) => res.data),
  });
  const versions = [...(detail.data?.versions ?? [])].sort((a, b) => b.version - a.version);

  const columns: TableColumnsType<CrfVersion> = [
    {
      title: STUDY_CRF_TEXT.version,
      dataIndex: 'version',
      width: 100,
      render: (v: number, row) => (
        <>
          {STUDY_CRF_TEXT.versionOf(v)}
          {row.draft && (
            <Tag color="gold" style={{ marginLeft: 4 }}>
              {AMENDMENT_TEXT.draftTag}
            </Tag>
          )}
        </>
      ),
    },
    { title: STUDY_CRF_TEXT.source, dataIndex: 'source', width: 100, render: sourceLabel },
    { title: STUDY_CRF_TEXT.creater, dataIndex: 'creater', width: 120 },
    {
      title: COMMON_TEXT.createTime,
      dataIndex: 'createTime',
      width: 180,
      render: (value: string) => formatDate(value),
    },
    {
      title: COMMON_TEXT.actions,
      key: 'actions',
      width: 150,
      render: (_: unknown, row) => (
        <Space size={0}>
          <Button type="link" size="small" onClick={() => onPreview(row.version)}>
            {STUDY_CRF_TEXT.preview}
          </Button>
          <Button type="link" size="small" onClick={() => onExport(row.version)}>
            {STUDY_CRF_TEXT.exportJson}
          </Button>
        </Space>
      ),
    },
  ];

  return (
    <Modal
      open={Boolean(target)}
      title={STUDY_CRF_TEXT.versionsTitle(target?.title ?? '')}
      onCancel={onClose}
      footer={null}
      width={760}
      destroyOnHidden
    >
      <Table<CrfVersion>
        rowKey="version"
        size="small"
        columns={columns}
        dataSource={versions}
        loading={detail.isLoading}
        pagination={false}
      />
    </Modal>
  );
}
