import { Modal, Typography } from 'antd';
import { SHELL_TEXT } from '../locales/shell.zh-CN';

/** 帮助与反馈: what the platform is for and how to report a problem. */
export function HelpDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Modal
      open={open}
      title={SHELL_TEXT.help}
      onCancel={onClose}
      onOk={onClose}
      cancelButtonProps={{ style: { display: 'none' } }}
    >
      <Typography.Paragraph>{SHELL_TEXT.helpText}</Typography.Paragraph>
      <Typography.Paragraph type="secondary">{SHELL_TEXT.feedbackText}</Typography.Paragraph>
    </Modal>
  );
}
