import { useEffect, useMemo, useRef, useState } from 'react';
import { App, Button, Modal, Radio, Select, Space, Upload } from 'antd';
import { CameraOutlined, InboxOutlined, PoweroffOutlined, VideoCameraOutlined } from '@ant-design/icons';
import { crfRecordApi } from '../../../api/crf.api';
import { recognitionApi } from '../../../api/recognition.api';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { RECOGNITION_TEXT } from '../../../locales/recognition.zh-CN';
import { CameraClient, CameraError, cameraBase, photoFile } from './camera-client';
import type { IdentifyTemplate } from './identify-templates';
import { RecognitionFailure, RECOGNITION_FAILED, recogniseImage, type RecognitionOutcome } from './recognise-flow';
import './recognition.css';

const t = RECOGNITION_TEXT;

/** forms §9: identify mode 1 is an image file, 2 the document camera. */
type IdentifyMode = 1 | 2;

const ACCEPT = '.jpg,.jpeg,.png,.pdf,image/jpeg,image/png,application/pdf';
const ACCEPTED_TYPES = new Set(['image/jpeg', 'image/png', 'application/pdf']);
const JOB_POLL_MS = 1000;

export interface RecognitionDialogProps {
  open: boolean;
  templates: readonly IdentifyTemplate[];
  studyId: number;
  crfId: number;
  subjectRecordId: number;
  /** The record the values go into; null while it is not saved yet (linked after its first save). */
  crfDataRecordId: number | null;
  onRecognised: (outcome: RecognitionOutcome) => void;
  onClose: () => void;
}

/**
 * 智能识别 (RECOG-01, RECOG-03): a lab report from an image file or the document camera is recognised on the
 * server and its values filled into the open form, unsaved and marked 识别 until the nurse confirms them.
 */
export function RecognitionDialog(props: RecognitionDialogProps) {
  const { open, templates, onClose } = props;
  const { message } = App.useApp();
  const camera = useMemo(() => new CameraClient(cameraBase()), []);
  const [templateKey, setTemplateKey] = useState<string | undefined>(undefined);
  const [mode, setMode] = useState<IdentifyMode>(1);
  const [file, setFile] = useState<File | null>(null);
  const [fileUrl, setFileUrl] = useState<string | null>(null);
  const [cameraOpen, setCameraOpen] = useState(false);
  const [opening, setOpening] = useState(false);
  const [grabbing, setGrabbing] = useState(false);
  const [stream, setStream] = useState<string | null>(null);
  const [photo, setPhoto] = useState<{ base64: string; takenAt: Date } | null>(null);
  const [busy, setBusy] = useState(false);
  const cameraOpenRef = useRef(false);

  const single = templates.length === 1 ? templates[0] : undefined;
  const template = single ?? templates.find((tpl) => tpl.key === templateKey);

  useEffect(() => {
    if (!fileUrl) return;
    return () => URL.revokeObjectURL(fileUrl);
  }, [fileUrl]);

  const closeCamera = () => {
    if (!cameraOpenRef.current) return;
    cameraOpenRef.current = false;
    setCameraOpen(false);
    setStream(null);
    camera.close().catch(() => undefined);
  };

  // Leaving the dialog (or the page) turns the camera's video off.
  useEffect(() => {
    if (!open) closeCamera();
    return closeCamera;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);

  const reset = () => {
    setFile(null);
    setFileUrl(null);
    setPhoto(null);
    setBusy(false);
  };

  const showCameraError = (error: unknown) =>
    void message.error(error instanceof CameraError ? error.message : t.cameraCallFailed);

  const openCamera = async () => {
    setOpening(true);
    try {
      await camera.ensureConnected();
      cameraOpenRef.current = true;
      setCameraOpen(true);
      setStream(camera.streamUrl());
    } catch (error) {
      showCameraError(error);
    } finally {
      setOpening(false);
    }
  };

  const capture = async () => {
    if (!cameraOpen) {
      void message.warning(t.cameraNotOpen);
      return;
    }
    setGrabbing(true);
    try {
      if (!(await camera.isVideoOpen())) {
        void message.warning(t.cameraNotOpen);
        return;
      }
      setPhoto({ base64: await camera.grab(), takenAt: new Date() });
    } catch (error) {
      showCameraError(error);
    } finally {
      setGrabbing(false);
    }
  };

  const pickFile = (picked: File) => {
    if (!ACCEPTED_TYPES.has(picked.type)) {
      void message.error(t.wrongType);
      return Upload.LIST_IGNORE;
    }
    setFile(picked);
    setFileUrl(picked.type.startsWith('image/') ? URL.createObjectURL(picked) : null);
    return false;
  };

  const recognise = async () => {
    if (!template) {
      void message.warning(t.pickTemplate);
      return;
    }
    let source: File;
    if (mode === 1) {
      if (!file) {
        void message.warning(t.noFile);
        return;
      }
      source = file;
    } else {
      if (!photo) {
        void message.warning(t.noPhoto);
        return;
      }
      source = photoFile(photo.base64, photo.takenAt);
    }
    setBusy(true);
    try {
      const outcome = await recogniseImage(
        {
          upload: (f) => crfRecordApi.upload(props.studyId, f).then((res) => res.data),
          temp: (fileKey) =>
            recognitionApi
              .temp(props.studyId, {
                fileKey,
                crfId: props.crfId,
                subjectRecordId: props.subjectRecordId,
                ...(props.crfDataRecordId ? { crfDataRecordId: props.crfDataRecordId } : {}),
              })
              .then((res) => res.data),
          recognise: (body) => recognitionApi.recognise(body).then((res) => res.data),
          job: (jobId) => recognitionApi.job(jobId).then((res) => res.data),
          pause: () => new Promise((resolve) => setTimeout(resolve, JOB_POLL_MS)),
        },
        template,
        source,
      );
      props.onRecognised(outcome);
      if (outcome.filled.length > 0) void message.success(t.success);
      else void message.warning(t.nothingMatched);
      // RECOG-13: the dialog closes on completion.
      closeCamera();
      reset();
      onClose();
    } catch (error) {
      void message.error(error instanceof RecognitionFailure ? error.message : RECOGNITION_FAILED);
      setBusy(false);
    }
  };

  return (
    <Modal
      open={open}
      title={t.title}
      width={760}
      onCancel={() => {
        closeCamera();
        reset();
        onClose();
      }}
      okText={t.recognise}
      cancelText={COMMON_TEXT.cancel}
      okButtonProps={{ loading: busy }}
      onOk={() => void recognise()}
      destroyOnHidden
      className="recognition-dialog"
    >
      <div className="recognition-fields">
        {templates.length > 1 && (
          <label className="recognition-field">
            <span className="recognition-label">{t.template}</span>
            <Select
              aria-label={t.template}
              placeholder={t.pickTemplate}
              value={templateKey}
              onChange={setTemplateKey}
              style={{ minWidth: 240 }}
              options={templates.map((tpl) => ({ value: tpl.key, label: tpl.label }))}
            />
          </label>
        )}
        <div className="recognition-field">
          <span className="recognition-label">{t.mode}</span>
          <Radio.Group
            value={mode}
            onChange={(event) => {
              const next = event.target.value as IdentifyMode;
              if (next === 1) closeCamera();
              setMode(next);
            }}
            optionType="button"
            buttonStyle="solid"
            options={[
              { value: 1, label: t.modeFile },
              { value: 2, label: t.modeCamera },
            ]}
          />
        </div>
      </div>
      {mode === 1 ? (
        <div className="recognition-file">
          <Upload.Dragger accept={ACCEPT} multiple={false} maxCount={1} showUploadList={false} beforeUpload={pickFile}>
            <p className="ant-upload-drag-icon">
              <InboxOutlined />
            </p>
            <p className="ant-upload-text">{t.fileDrop}</p>
            <p className="ant-upload-hint">{t.fileHint}</p>
          </Upload.Dragger>
          {file && (
            <div className="recognition-preview">
              {fileUrl ? <img src={fileUrl} alt={t.filePreview} /> : null}
              <span className="recognition-file-name">{file.name}</span>
            </div>
          )}
        </div>
      ) : (
        <div className="recognition-camera">
          <Space wrap>
            {cameraOpen ? (
              <Button icon={<PoweroffOutlined />} onClick={closeCamera}>
                {t.closeCamera}
              </Button>
            ) : (
              <Button icon={<VideoCameraOutlined />} loading={opening} onClick={() => void openCamera()}>
                {t.openCamera}
              </Button>
            )}
            <Button type="primary" ghost icon={<CameraOutlined />} loading={grabbing} onClick={() => void capture()}>
              {photo ? t.retake : t.capture}
            </Button>
          </Space>
          <div className="recognition-views">
            <figure className="recognition-view">
              {stream ? (
                <img
                  src={stream}
                  alt={t.liveView}
                  onError={() => {
                    if (!cameraOpenRef.current) return;
                    void message.error(t.cameraCallFailed);
                    closeCamera();
                  }}
                />
              ) : (
                <div className="recognition-view-empty">{t.cameraClosed}</div>
              )}
              <figcaption>{t.liveView}</figcaption>
            </figure>
            <figure className="recognition-view">
              {photo ? (
                <img src={`data:image/jpeg;base64,${photo.base64}`} alt={t.photo} />
              ) : (
                <div className="recognition-view-empty">{t.noPhotoYet}</div>
              )}
              <figcaption>{t.photo}</figcaption>
            </figure>
          </div>
        </div>
      )}
    </Modal>
  );
}
