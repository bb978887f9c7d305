import { useState } from 'react';
import { Button, Image, Modal, Tooltip } from 'antd';
import { DeleteOutlined, EditOutlined, PlayCircleFilled, PlusOutlined } from '@ant-design/icons';
import {
  applyUploadEntry,
  readMediaList,
  storedFileKey,
  writeMediaList,
  type ImageEntry,
  type MediaEntry,
  type MediaKind,
  type VideoEntry,
} from '@ecrf/core';
import { useCrfStore, useStoreSlice } from '../crf-store';
import { CRF_T } from '../crf-texts';
import { confirmRemoveFile, useCrfUi } from '../crf-ui';
import { useFileNames } from '../../stores/file-names.store';
import { IMAGE_PLACEHOLDER, fileName, fileUrl, thumbnailUrl } from '../upload-rules';
import { MediaUploadDialog } from './media-upload-dialog';
import type { ControlProps } from './widget-types';

/**
 * The image and video lists (forms §3, §4): any stored shape is read, and every change (add appends,
 * edit replaces at its index, remove after confirmation) emits the whole list as JSON.
 */
export function MediaUpload<K extends MediaKind>({
  kind,
  id,
  value,
  disabled,
  onChange,
  onBlur,
  ariaLabel,
  labelId,
}: ControlProps & { kind: K }) {
  const store = useCrfStore();
  const ui = useCrfUi();
  const canUpload = useStoreSlice(store, (s) => s.canUpload);
  const names = useFileNames();
  const entries = readMediaList(kind, value);
  const [dialog, setDialog] = useState<{ index: number | undefined } | null>(null);
  const [playing, setPlaying] = useState<string | null>(null);
  const image = kind === 'image';

  const emit = (list: readonly MediaEntry<K>[]) => {
    // An empty list is stored as no value: core reads "[]" as filled, so required would pass.
    onChange(list.length > 0 ? writeMediaList(list) : undefined);
    onBlur();
  };
  const remove = (index: number) =>
    confirmRemoveFile(
      ui,
      { title: CRF_T.confirmTitle, content: CRF_T.confirmRemoveFile, ok: CRF_T.ok, cancel: CRF_T.cancel },
      () => emit(entries.filter((_, i) => i !== index)),
    );
  const canAdd = !disabled && canUpload;

  return (
    <div className="crf-media" id={id} role="group" aria-labelledby={labelId} aria-label={ariaLabel}>
      {entries.map((entry, index) => {
        const url = image ? (entry as ImageEntry).dialogImgUrl : (entry as VideoEntry).dialogVideoUrl;
        const time = image ? (entry as ImageEntry).uploadTime : (entry as VideoEntry).videoTime;
        // The name it was uploaded with, when known (a stored key is not a name to show).
        const key = storedFileKey(url);
        const name = key === null ? fileName(url) : (names.get(key) ?? '');
        const label = entry.remarks || name || time;
        return (
          <div className="crf-media-item" key={`${index}-${url}`}>
            <div className="crf-media-thumb">
              {image ? (
                <Image src={fileUrl(url)} fallback={IMAGE_PLACEHOLDER} width={104} height={104} alt={label} />
              ) : (
                <button
                  type="button"
                  className="crf-video-play"
                  aria-label={`${CRF_T.play}${label}`}
                  onClick={() => setPlaying(fileUrl(url))}
                >
                  <VideoThumb value={url} />
                  <PlayCircleFilled className="crf-video-icon" />
                </button>
              )}
            </div>
            <div className="crf-media-meta" title={[name, entry.remarks, time].filter(Boolean).join(' · ')}>
              {label}
            </div>
            {!disabled && (
              <div className="crf-media-actions">
                <Tooltip title={CRF_T.edit}>
                  <Button
                    size="small"
                    type="text"
                    icon={<EditOutlined />}
                    aria-label={CRF_T.edit}
                    onClick={() => setDialog({ index })}
                  />
                </Tooltip>
                <Tooltip title={CRF_T.remove}>
                  <Button
                    size="small"
                    type="text"
                    danger
                    icon={<DeleteOutlined />}
                    aria-label={CRF_T.remove}
                    onClick={() => remove(index)}
                  />
                </Tooltip>
              </div>
            )}
          </div>
        );
      })}
      {!disabled && (
        <Tooltip title={canUpload ? undefined : CRF_T.uploadUnavailable}>
          <button
            type="button"
            className="crf-media-add"
            disabled={!canAdd}
            onClick={() => setDialog({ index: undefined })}
          >
            <PlusOutlined />
            <span>{image ? CRF_T.uploadImage : CRF_T.uploadVideo}</span>
          </button>
        </Tooltip>
      )}
      {disabled && entries.length === 0 && <span className="crf-muted">{CRF_T.empty}</span>}
      {playing && (
        <Modal open footer={null} width={720} onCancel={() => setPlaying(null)} destroyOnHidden title={CRF_T.play}>
          <video src={playing} controls autoPlay className="crf-video" />
        </Modal>
      )}
      {dialog && (
        <MediaUploadDialog
          kind={kind}
          entry={dialog.index === undefined ? null : (entries[dialog.index] ?? null)}
          onCancel={() => setDialog(null)}
          onConfirm={(entry) => {
            emit(applyUploadEntry(entries, entry, dialog.index));
            setDialog(null);
          }}
        />
      )}
    </div>
  );
}

/**
 * UPL-17: a video's tile shows its first frame (`<value>_thumbnail.jpg`) instead of loading the video; a video
 * without one (uploaded before, by a browser that could not draw it, or from an outside address) shows the video.
 */
function VideoThumb({ value }: { value: string }) {
  const thumb = thumbnailUrl(value);
  const [failed, setFailed] = useState(false);
  if (thumb !== null && !failed) {
    return <img src={thumb} alt="" className="crf-video-thumb" onError={() => setFailed(true)} />;
  }
  return <video src={fileUrl(value)} preload="metadata" muted className="crf-video-thumb" />;
}
