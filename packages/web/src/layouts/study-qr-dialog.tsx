import { useQuery } from '@tanstack/react-query';
import { App, Button, Modal, Spin, Typography } from 'antd';
import { MSG } from '@ecrf/core';
import type { ApiResult } from '../api/request';
import { studyApi, type StudyQr } from '../api/study.api';
import { SHELL_TEXT } from '../locales/shell.zh-CN';
import { queryKeys } from '../api/query-keys';

/** platform §2 (STUDY-27): the QR image is shown 180 px square; the server draws it with a margin of 2 modules. */
export const QR_SIZE = 180;

/** STUDY-28: the download is named after the study plus 二维码.png. */
export function qrFileName(studyName: string | null | undefined): string {
  return `${(studyName ?? '').trim()}${SHELL_TEXT.qrFileSuffix}`;
}

/**
 * STUDY-29: the QR call counts as failed when the answer is not 200, carries no message or no
 * image; the failure always reads 您未参与该项目 whatever the server said.
 */
export function qrImageOf(res: Pick<ApiResult<StudyQr | null>, 'code' | 'msg' | 'data'>): string {
  const image = res.data?.qrCode;
  if (res.code !== 200 || !res.msg || !image) throw new Error(MSG.notInStudy);
  return image;
}

/** Saves a data URL as a file through a temporary link. */
export function saveDataUrl(dataUrl: string, fileName: string, doc: Document = document): void {
  const link = doc.createElement('a');
  link.href = dataUrl;
  link.download = fileName;
  doc.body.appendChild(link);
  try {
    link.click();
  } finally {
    link.remove();
  }
}

interface StudyQrDialogProps {
  open: boolean;
  studyId: string | null;
  studyName: string | null;
  onClose: () => void;
}

/** 项目二维码: the study's QR code (a PNG the server draws) with a download button. */
export function StudyQrDialog({ open, studyId, studyName, onClose }: StudyQrDialogProps) {
  const { message } = App.useApp();
  const {
    data: image,
    isLoading,
    isError,
  } = useQuery({
    queryKey: queryKeys.studyQr.image(studyId),
    enabled: open && Boolean(studyId),
    retry: false,
    queryFn: async () => {
      try {
        return qrImageOf(await studyApi.qrCode(studyId!));
      } catch (error) {
        void message.error(MSG.notInStudy);
        throw error;
      }
    },
  });

  const download = () => {
    try {
      if (!image) throw new Error('no image');
      saveDataUrl(image, qrFileName(studyName));
    } catch (error) {
      // platform §8 (STUDY-30): a failed QR download is logged, nothing is shown.
      console.error(SHELL_TEXT.qrDownloadFailed, error);
    }
  };

  let body;
  if (isError) body = <Typography.Text type="secondary">{MSG.notInStudy}</Typography.Text>;
  else if (isLoading || !image) body = <Spin />;
  else body = <img src={image} width={QR_SIZE} height={QR_SIZE} alt={SHELL_TEXT.qrCode} style={{ display: 'block' }} />;

  return (
    <Modal
      open={open}
      title={SHELL_TEXT.qrCode}
      onCancel={onClose}
      footer={
        <Button type="primary" disabled={!image} onClick={download}>
          {SHELL_TEXT.qrDownload}
        </Button>
      }
      width={320}
      destroyOnHidden
    >
      <div
        style={{
          display: 'flex',
          flexDirection: 'column',
          alignItems: 'center',
          gap: 8,
          minHeight: QR_SIZE,
          justifyContent: 'center',
        }}
      >
        {body}
        {image && studyName && <Typography.Text>{studyName}</Typography.Text>}
      </div>
    </Modal>
  );
}
