import { useState } from 'react';
import { Button, Image, Input, Modal, Progress, Upload } from 'antd';
import { CameraOutlined, UploadOutlined, VideoCameraOutlined } from '@ant-design/icons';
import {
  UPLOAD_REMARKS_MAX,
  nowString,
  type ImageEntry,
  type MediaEntry,
  type MediaKind,
  type VideoEntry,
} from '@ecrf/core';
import { useCrfStore, useStoreSlice } from '../crf-store';
import { CRF_T } from '../crf-texts';
import { useCrfUi } from '../crf-ui';
import { useTouchScreen } from '../touch';
import { IMAGE_PLACEHOLDER, fileUrl, isVideoTooLarge } from '../upload-rules';
import { firstFrameJpeg } from '../video-thumbnail';

export interface MediaUploadDialogProps<K extends MediaKind> {
  kind: K;
  /** The entry being edited; absent when adding. */
  entry: MediaEntry<K> | null;
  onConfirm: (entry: MediaEntry<K>) => void;
  onCancel: () => void;
}

const urlOf = (kind: MediaKind, entry: MediaEntry<MediaKind> | null) =>
  entry ? (kind === 'image' ? (entry as ImageEntry).dialogImgUrl : (entry as VideoEntry).dialogVideoUrl) : '';
const timeOf = (kind: MediaKind, entry: MediaEntry<MediaKind> | null) =>
  entry ? (kind === 'image' ? (entry as ImageEntry).uploadTime : (entry as VideoEntry).videoTime) : '';

/**
 * The image and video upload dialogs (forms §2, §4): add mode starts empty, edit mode shows the
 * chosen entry. A video of 500 MB or more is refused before upload (forms §5). Remarks hold at most
 * 180 characters. Confirming hands back one entry; the widget appends or replaces it.
 */
export function MediaUploadDialog<K extends MediaKind>({
  kind,
  entry,
  onConfirm,
  onCancel,
}: MediaUploadDialogProps<K>) {
  const store = useCrfStore();
  const ui = useCrfUi();
  const canUpload = useStoreSlice(store, (s) => s.canUpload);
  const [url, setUrl] = useState(() => urlOf(kind, entry));
  const [time, setTime] = useState(() => timeOf(kind, entry));
  const [remarks, setRemarks] = useState(entry?.remarks ?? '');
  const [uploading, setUploading] = useState(false);
  const [percent, setPercent] = useState(0);
  const touch = useTouchScreen();
  const image = kind === 'image';
  const editing = entry !== null;
  const title = image
    ? editing
      ? CRF_T.editImageTitle
      : CRF_T.addImageTitle
    : editing
      ? CRF_T.editVideoTitle
      : CRF_T.addVideoTitle;

  const upload = async (file: File) => {
    if (!image && isVideoTooLarge(file)) {
      void ui.message.error(CRF_T.videoTooLarge);
      return;
    }
    setUploading(true);
    setPercent(0);
    try {
      const result = await store.upload(file, kind, setPercent);
      const stored = result.url ?? result.fileKey ?? '';
      if (!stored) throw new Error(CRF_T.uploadFailed);
      if (!image) {
        // UPL-17: the first frame goes up right after the video, as `<name>_thumbnail.jpg` beside it, without
        // holding the dialog. A browser that cannot draw it, or a refused upload, leaves the video without one:
        // the widget then shows the video itself.
        void firstFrameJpeg(file).then((frame) =>
          frame ? store.upload(frame, 'image', undefined, stored).catch(() => undefined) : undefined,
        );
      }
      setUrl(stored);
      setTime(nowString(new Date(), store.context.timeZone));
    } catch (error) {
      // forms §7: a failed upload shows the error's message.
      void ui.message.error(error instanceof Error && error.message ? error.message : CRF_T.uploadFailed);
    } finally {
      setUploading(false);
    }
  };

  const confirm = () => {
    if (!url) {
      void ui.message.warning(CRF_T.fileRequired);
      return;
    }
    const next = image
      ? { uploadTime: time, remarks, dialogImgUrl: url }
      : { videoTime: time, remarks, dialogVideoUrl: url };
    onConfirm(next as MediaEntry<K>);
  };

  return (
    <Modal
      open
      title={title}
      width={560}
      onCancel={onCancel}
      destroyOnHidden
      footer={[
        <Button key="cancel" onClick={onCancel}>
          {CRF_T.cancel}
        </Button>,
        <Button key="ok" type="primary" disabled={uploading} onClick={confirm}>
          {CRF_T.ok}
        </Button>,
      ]}
    >
      <div className="crf-upload-dialog">
        <div className="crf-upload-dialog-row">
          {/* On a touch screen the camera comes first (capture: the back camera, as a ward photo of a film or
              a wound is taken); choosing from the gallery stays beside it, since capture skips the gallery. */}
          {touch && (
            <Upload
              accept={image ? 'image/*' : 'video/*'}
              capture="environment"
              showUploadList={false}
              disabled={uploading || !canUpload}
              beforeUpload={(file) => {
                void upload(file);
                return false;
              }}
            >
              <Button type="primary" icon={image ? <CameraOutlined /> : <VideoCameraOutlined />} loading={uploading}>
                {image ? CRF_T.takePhoto : CRF_T.recordVideo}
              </Button>
            </Upload>
          )}
          <Upload
            accept={image ? 'image/*' : 'video/*'}
            showUploadList={false}
            disabled={uploading || !canUpload}
            beforeUpload={(file) => {
              void upload(file);
              return false;
            }}
          >
            <Button icon={<UploadOutlined />} loading={!touch && uploading}>
              {touch ? CRF_T.fromGallery : url ? CRF_T.reupload : image ? CRF_T.chooseImage : CRF_T.chooseVideo}
            </Button>
          </Upload>
          {uploading && <span className="crf-muted">{CRF_T.uploading}</span>}
        </div>
        {/* forms §7: the upload reports its progress (straight to the object store, or to this server). */}
        {uploading && <Progress percent={percent} size="small" aria-label={CRF_T.uploading} />}
        {url && (
          <div className="crf-upload-preview">
            {image ? (
              <Image src={fileUrl(url)} fallback={IMAGE_PLACEHOLDER} alt={CRF_T.remarks} height={160} />
            ) : (
              <video src={fileUrl(url)} controls preload="metadata" className="crf-video" />
            )}
          </div>
        )}
        {time && (
          <div className="crf-upload-dialog-row">
            <span className="crf-muted">{image ? CRF_T.uploadTime : CRF_T.videoTime}</span>
            <span>{time}</span>
          </div>
        )}
        <label className="crf-upload-label" htmlFor="crf-upload-remarks">
          {CRF_T.remarks}
        </label>
        <Input.TextArea
          id="crf-upload-remarks"
          value={remarks}
          maxLength={UPLOAD_REMARKS_MAX}
          showCount
          autoSize={{ minRows: 3, maxRows: 6 }}
          placeholder={CRF_T.remarksPlaceholder}
          onChange={(event) => setRemarks(event.target.value.slice(0, UPLOAD_REMARKS_MAX))}
        />
      </div>
    </Modal>
  );
}
