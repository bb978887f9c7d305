import { useState } from 'react';
import { Button, Progress, Upload } from 'antd';
import { DeleteOutlined, PaperClipOutlined, UploadOutlined } from '@ant-design/icons';
import { useCrfStore, useStoreSlice } from '../crf-store';
import { CRF_T } from '../crf-texts';
import { confirmRemoveFile, useCrfUi } from '../crf-ui';
import { useFileNames } from '../../stores/file-names.store';
import { safeHref } from '../../utils/safe-href';
import { fileName, fileUrl } from '../upload-rules';
import type { ControlProps } from './widget-types';
import { asText } from './widget-utils';

/**
 * 文件上传: one file; the value is its URL or, without a slash, a file key fetched through the download call,
 * shown under the name it was uploaded with.
 */
export function FileUploadWidget({ id, value, disabled, onChange, onBlur, ariaLabel }: ControlProps) {
  const store = useCrfStore();
  const ui = useCrfUi();
  const canUpload = useStoreSlice(store, (s) => s.canUpload);
  const [uploading, setUploading] = useState(false);
  const [percent, setPercent] = useState(0);
  const names = useFileNames();
  const text = asText(value);

  const upload = async (file: File) => {
    setUploading(true);
    setPercent(0);
    try {
      const result = await store.upload(file, 'file', setPercent);
      const stored = result.url ?? result.fileKey ?? '';
      if (!stored) throw new Error(CRF_T.uploadFailed);
      onChange(stored);
      onBlur();
    } catch (error) {
      void ui.message.error(error instanceof Error && error.message ? error.message : CRF_T.uploadFailed);
    } finally {
      setUploading(false);
    }
  };

  const picker = (
    <Upload
      showUploadList={false}
      disabled={disabled || uploading || !canUpload}
      beforeUpload={(file) => {
        void upload(file);
        return false;
      }}
    >
      <Button icon={<UploadOutlined />} loading={uploading} disabled={disabled || !canUpload} aria-label={ariaLabel}>
        {text ? CRF_T.reupload : CRF_T.uploadFile}
      </Button>
    </Upload>
  );

  return (
    <div className="crf-file" id={id}>
      {text && (
        <span className="crf-file-link">
          <PaperClipOutlined />
          {/* A stored value is whatever a client saved: only a web or relative address opens. */}
          <a href={safeHref(fileUrl(text))} target="_blank" rel="noreferrer">
            {fileName(text, names)}
          </a>
        </span>
      )}
      {!disabled && picker}
      {uploading && (
        <Progress percent={percent} size="small" className="crf-file-progress" aria-label={CRF_T.uploading} />
      )}
      {text && !disabled && (
        <Button
          type="text"
          danger
          size="small"
          icon={<DeleteOutlined />}
          aria-label={CRF_T.remove}
          onClick={() =>
            confirmRemoveFile(
              ui,
              { title: CRF_T.confirmTitle, content: CRF_T.confirmRemoveFile, ok: CRF_T.ok, cancel: CRF_T.cancel },
              () => {
                onChange('');
                onBlur();
              },
            )
          }
        />
      )}
      {disabled && !text && <span className="crf-muted">{CRF_T.empty}</span>}
    </div>
  );
}
