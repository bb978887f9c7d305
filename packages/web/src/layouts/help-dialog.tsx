import { Modal, Typography } from 'antd';
import { T } from '../locales/zh-CN';

/** 帮助与反馈: what the platform is for and how to report a problem. */
export function HelpDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Modal
      open={open}
      title={T.shell.help}
      onCancel={onClose}
      onOk={onClose}
      cancelButtonProps={{ style: { display: 'none' } }}
    >
      <Typography.Paragraph>{T.shell.helpText}</Typography.Paragraph>
      <Typography.Paragraph type="secondary">{T.shell.feedbackText}</Typography.Paragraph>
    </Modal>
  );
}
