import { Button, Space, Upload } from 'antd';
import { UploadOutlined } from '@ant-design/icons';
import { RANDOMIZATION_TEXT } from '../../../../locales/randomization.zh-CN';

const t = RANDOMIZATION_TEXT;

/** A CSV chosen to replace the generated list: its file name and text, read in the browser. */
export interface ChosenList {
  name: string;
  text: string;
}

export interface ListUploadProps {
  list: ChosenList | null;
  onChange: (list: ChosenList | null) => void;
}

/** 上传随机分配表: a CSV list saved with the configuration instead of a generated one (not for minimization). */
export function ListUpload({ list, onChange }: ListUploadProps) {
  return (
    <>
      <h3 className="rand-section">{t.upload}</h3>
      <p className="rand-muted">{t.uploadHint}</p>
      <Space wrap>
        <Upload
          accept=".csv,text/csv"
          showUploadList={false}
          beforeUpload={(file) => {
            void file.text().then((text) => onChange({ name: file.name, text }));
            return false;
          }}
        >
          <Button icon={<UploadOutlined aria-hidden />}>{t.chooseCsv}</Button>
        </Upload>
        {list && (
          <span>
            {t.chosen(list.name)}{' '}
            <Button type="link" size="small" onClick={() => onChange(null)}>
              {t.clearCsv}
            </Button>
          </span>
        )}
      </Space>
    </>
  );
}
