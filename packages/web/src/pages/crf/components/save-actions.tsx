import { Button, Space, Tag } from 'antd';
import { SaveOutlined, SendOutlined } from '@ant-design/icons';
import { FORM_STATE } from '../../../api/crf.api';
import { CRF_PAGE_TEXT } from '../../../locales/crf-page.zh-CN';
import { formatDate } from '../../../utils/format-date';

const t = CRF_PAGE_TEXT;

export interface SaveActionsProps {
  canSave: boolean;
  canSubmit: boolean;
  dirty: boolean;
  saving: false | 'save' | 'submit';
  retrying: boolean;
  /** When the values were last saved in this editor (ISO). */
  savedAt: string | null;
  recordState: number | null;
  onSave: (submit: boolean) => void;
}

/** Under the form: the unsaved tag or when it was saved, 保存 and 提交, and the submitted state. */
export function SaveActions({
  canSave,
  canSubmit,
  dirty,
  saving,
  retrying,
  savedAt,
  recordState,
  onSave,
}: SaveActionsProps) {
  return (
    <div className="crf-editor-actions">
      <Space size="middle">
        {dirty ? (
          <Tag color="orange">{t.unsavedTag}</Tag>
        ) : savedAt ? (
          <span className="crf-saved-at">{t.savedAt(formatDate(savedAt, 'HH:mm:ss'))}</span>
        ) : null}
        {retrying && <span className="crf-saved-at">{t.retrying}</span>}
        {canSave && (
          <Button
            icon={<SaveOutlined />}
            loading={saving === 'save'}
            disabled={saving === 'submit'}
            onClick={() => onSave(false)}
          >
            {t.save}
          </Button>
        )}
        {canSubmit && (
          <Button
            type="primary"
            icon={<SendOutlined />}
            loading={saving === 'submit'}
            disabled={saving === 'save'}
            onClick={() => onSave(true)}
          >
            {t.submit}
          </Button>
        )}
      </Space>
      {recordState === FORM_STATE.submitted && <span className="crf-editor-submitted">{t.state.submitted}</span>}
    </div>
  );
}
