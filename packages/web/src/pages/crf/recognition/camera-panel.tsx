import { useEffect, useMemo, useRef, useState } from 'react';
import { App, Button, Space } from 'antd';
import { CameraOutlined, PoweroffOutlined, VideoCameraOutlined } from '@ant-design/icons';
import { RECOGNITION_TEXT } from '../../../locales/recognition.zh-CN';
import { CameraClient, CameraError, cameraBase } from './camera-client';

const t = RECOGNITION_TEXT;

/**
 * The document camera of the 智能识别 dialog (RECOG-14..19): open it, watch its live view, take a photo. Its video
 * is turned off when the dialog closes (`open` false) or the page goes.
 */
export function useDocumentCamera(open: boolean) {
  const { message } = App.useApp();
  const camera = useMemo(() => new CameraClient(cameraBase()), []);
  const [cameraOpen, setCameraOpen] = useState(false);
  const [opening, setOpening] = useState(false);
  const [grabbing, setGrabbing] = useState(false);
  const [stream, setStream] = useState<string | null>(null);
  const [photo, setPhoto] = useState<{ base64: string; takenAt: Date } | null>(null);
  const cameraOpenRef = useRef(false);

  const close = () => {
    if (!cameraOpenRef.current) return;
    cameraOpenRef.current = false;
    setCameraOpen(false);
    setStream(null);
    camera.close().catch(() => undefined);
  };

  // Leaving the dialog (or the page) turns the camera's video off.
  useEffect(() => {
    if (!open) close();
    return close;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);

  const showError = (error: unknown) =>
    void message.error(error instanceof CameraError ? error.message : t.cameraCallFailed);

  const openCamera = async () => {
    setOpening(true);
    try {
      await camera.ensureConnected();
      cameraOpenRef.current = true;
      setCameraOpen(true);
      setStream(camera.streamUrl());
    } catch (error) {
      showError(error);
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
      showError(error);
    } finally {
      setGrabbing(false);
    }
  };

  /** The live view stopped loading while the camera was open: the service is gone. */
  const streamFailed = () => {
    if (!cameraOpenRef.current) return;
    void message.error(t.cameraCallFailed);
    close();
  };

  return { cameraOpen, opening, grabbing, stream, photo, setPhoto, openCamera, capture, close, streamFailed };
}

export type DocumentCamera = ReturnType<typeof useDocumentCamera>;

/** Mode 2 of the dialog: the camera's buttons, its live view and the photo taken. */
export function CameraPanel({ camera }: { camera: DocumentCamera }) {
  const { cameraOpen, opening, grabbing, stream, photo } = camera;
  return (
    <div className="recognition-camera">
      <Space wrap>
        {cameraOpen ? (
          <Button icon={<PoweroffOutlined />} onClick={camera.close}>
            {t.closeCamera}
          </Button>
        ) : (
          <Button icon={<VideoCameraOutlined />} loading={opening} onClick={() => void camera.openCamera()}>
            {t.openCamera}
          </Button>
        )}
        <Button type="primary" ghost icon={<CameraOutlined />} loading={grabbing} onClick={() => void camera.capture()}>
          {photo ? t.retake : t.capture}
        </Button>
      </Space>
      <div className="recognition-views">
        <figure className="recognition-view">
          {stream ? (
            <img src={stream} alt={t.liveView} onError={camera.streamFailed} />
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
  );
}
