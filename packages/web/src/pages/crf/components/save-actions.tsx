import type { ReactElement } from 'react';
import { Button, Space, Tag, Tooltip } from 'antd';
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
  /** A lock holds the record: 保存 and 提交 are shown disabled with its words (docs/multi-centre.md). */
  lockedText?: string | undefined;
}

/** A disabled button keeps its tooltip through a wrapper (a disabled button fires no pointer events). */
const withLockTip = (lockedText: string | undefined, button: ReactElement) =>
  lockedText ? (
    <Tooltip title={lockedText}>
      <span className="crf-locked-action" style={{ cursor: 'not-allowed' }}>
        {button}
      </span>
    </Tooltip>
  ) : (
    button
  );

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
  lockedText,
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
        {canSave &&
          withLockTip(
            lockedText,
            <Button
              icon={<SaveOutlined />}
              loading={saving === 'save'}
              disabled={saving === 'submit' || Boolean(lockedText)}
              onClick={() => onSave(false)}
            >
              {t.save}
            </Button>,
          )}
        {canSubmit &&
          withLockTip(
            lockedText,
            <Button
              type="primary"
              icon={<SendOutlined />}
              loading={saving === 'submit'}
              disabled={saving === 'save' || Boolean(lockedText)}
              onClick={() => onSave(true)}
            >
              {t.submit}
            </Button>,
          )}
      </Space>
      {recordState === FORM_STATE.submitted && <span className="crf-editor-submitted">{t.state.submitted}</span>}
    </div>
  );
}
