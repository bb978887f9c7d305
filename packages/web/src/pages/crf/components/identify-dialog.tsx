import { Alert, Modal } from 'antd';
import { T } from '../../../locales/zh-CN';

/**
 * 识别 (RECOG-*): the recognition service and the document camera are not connected yet, so the
 * dialog says so rather than pretending; the button shows only on forms with an identify type.
 */
export function IdentifyDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Modal
      open={open}
      title={T.crfPage.identifyTitle}
      onCancel={onClose}
      onOk={onClose}
      okText={T.common.ok}
      cancelButtonProps={{ style: { display: 'none' } }}
    >
      <Alert type="info" showIcon title={T.crfPage.identifyUnavailable} />
    </Modal>
  );
}
