import { useState } from 'react';
import { Alert, Button, Modal, Space, Table, Upload } from 'antd';
import { UploadOutlined } from '@ant-design/icons';
import { labRangesApi, labRangesKey, type LabRangeImportResult } from '../../../../api/lab-ranges.api';
import { useListMutation } from '../../../../components/table-page';
import { LAB_RANGES_TEXT as t } from '../../../../locales/lab-ranges.zh-CN';

/**
 * 导入参考范围: a file is previewed first (the rows it would load, and every refused row with its row number and
 * reason); it imports only when no row is refused, since the server loads a file all or nothing.
 */
export function LabRangesImport({ studyId, onClose }: { studyId: number; onClose: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<LabRangeImportResult | null>(null);
  const [previewing, setPreviewing] = useState(false);
  const load = useListMutation({
    mutationFn: (f: File) => labRangesApi.importFile(studyId, f, false),
    invalidate: [labRangesKey(studyId)],
    onSuccess: onClose,
  });
  const runPreview = async () => {
    if (!file) return;
    setPreviewing(true);
    try {
      setPreview((await labRangesApi.importFile(studyId, file, true)).data);
    } finally {
      setPreviewing(false);
    }
  };
  const importable = preview !== null && preview.refused.length === 0 && preview.accepted.length > 0;
  return (
    <Modal
      open
      width={720}
      title={t.importFile}
      onCancel={onClose}
      footer={
        <Space>
          <Button onClick={onClose}>{t.cancel}</Button>
          <Button disabled={!file} loading={previewing} onClick={() => void runPreview()}>
            {t.preview}
          </Button>
          <Button
            type="primary"
            disabled={!importable}
            loading={load.isPending}
            onClick={() => file && load.mutate(file)}
          >
            {t.doImport}
          </Button>
        </Space>
      }
    >
      <Upload
        accept=".xlsx,.csv"
        maxCount={1}
        beforeUpload={(f) => {
          setFile(f);
          setPreview(null);
          // Kept here, sent on 预览 and 导入: never uploaded on choosing.
          return false;
        }}
        onRemove={() => {
          setFile(null);
          setPreview(null);
        }}
      >
        <Button icon={<UploadOutlined />}>{t.chooseFile}</Button>
      </Upload>
      {preview && (
        <div style={{ marginTop: 12 }}>
          <Alert type="success" showIcon title={t.previewAccepted(preview.accepted.length)} />
          {preview.refused.length > 0 && (
            <>
              <Alert type="error" showIcon style={{ marginTop: 8 }} title={t.previewRefused(preview.refused.length)} />
              <Table
                rowKey="row"
                size="small"
                style={{ marginTop: 8 }}
                pagination={false}
                dataSource={preview.refused}
                columns={[
                  { title: t.row, dataIndex: 'row', width: 80 },
                  { title: t.why, dataIndex: 'reason' },
                ]}
              />
            </>
          )}
        </div>
      )}
    </Modal>
  );
}
