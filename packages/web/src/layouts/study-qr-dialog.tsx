import { useRef } from 'react';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Modal, QRCode, Spin } from 'antd';
import { MSG } from '@ecrf/core';
import { studyApi } from '../api/study.api';
import { T } from '../locales/zh-CN';

/** platform §2: QR size 180 with margin 2; the download is named after the study. */
const QR_SIZE = 180;
const QR_MARGIN = 2;

interface StudyQrDialogProps {
  open: boolean;
  studyId: string | null;
  studyName: string | null;
  onClose: () => void;
}

/** 项目二维码: the study's QR code with a download button. */
export function StudyQrDialog({ open, studyId, studyName, onClose }: StudyQrDialogProps) {
  const { message } = App.useApp();
  const box = useRef<HTMLDivElement>(null);
  const { data: value, isLoading } = useQuery({
    queryKey: ['study-qr', studyId],
    enabled: open && Boolean(studyId),
    retry: false,
    queryFn: async () => {
      try {
        const res = await studyApi.qrCode(studyId!);
        const text = typeof res.data === 'string' && res.data ? res.data : res.msg;
        if (!text) throw new Error(MSG.notInStudy);
        return text;
      } catch {
        void message.error(MSG.notInStudy);
        onClose();
        return null;
      }
    },
  });

  const download = () => {
    try {
      const canvas = box.current?.querySelector('canvas');
      if (!canvas) throw new Error('no canvas');
      const link = document.createElement('a');
      link.href = canvas.toDataURL('image/png');
      link.download = `${studyName ?? ''}${T.shell.qrFileSuffix}`;
      link.click();
    } catch (error) {
      // platform §8: a failed QR download is logged, not shown.
      console.warn(T.shell.qrDownloadFailed, error);
    }
  };

  return (
    <Modal
      open={open}
      title={T.shell.qrCode}
      onCancel={onClose}
      footer={
        <Button type="primary" disabled={!value} onClick={download}>
          {T.shell.qrDownload}
        </Button>
      }
      width={320}
    >
      <div ref={box} style={{ display: 'flex', justifyContent: 'center', padding: QR_MARGIN * 4 }}>
        {isLoading || !value ? <Spin /> : <QRCode value={value} size={QR_SIZE} bordered={false} type="canvas" />}
      </div>
    </Modal>
  );
}
