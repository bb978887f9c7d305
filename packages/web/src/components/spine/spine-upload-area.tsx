import { Upload } from 'antd';
import { InboxOutlined } from '@ant-design/icons';
import { checkMeasurementImage } from '@ecrf/core';
import { useCrfUi } from '../../crf/crf-ui';

interface SpineUploadAreaProps {
  /** The widget's own class for the area. */
  className: string;
  id: string;
  labelId?: string | undefined;
  disabled: boolean;
  /** What the area says: the hint, or what is happening to the film being sent. */
  text: string;
  /** The file types it takes. */
  hint: string;
  onFile: (file: File) => void;
}

/** A spine widget before its X-ray: the drop area for the film, JPEG, PNG or BMP only (SPA, SPM-04). */
export function SpineUploadArea({ className, id, labelId, disabled, text, hint, onFile }: SpineUploadAreaProps) {
  const ui = useCrfUi();
  return (
    <div className={className} id={id} aria-labelledby={labelId}>
      <Upload.Dragger
        accept=".jpg,.jpeg,.png,.bmp,image/jpeg,image/png,image/bmp"
        showUploadList={false}
        disabled={disabled}
        beforeUpload={(file) => {
          const refusal = checkMeasurementImage(file);
          if (refusal) void ui.message.error(refusal);
          else onFile(file);
          return Upload.LIST_IGNORE;
        }}
      >
        <p className="ant-upload-drag-icon">
          <InboxOutlined />
        </p>
        <p className="ant-upload-text">{text}</p>
        <p className="ant-upload-hint">{hint}</p>
      </Upload.Dragger>
    </div>
  );
}
