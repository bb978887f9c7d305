import { useEffect, useRef, useState } from 'react';
import { App, Button, Modal, Radio, Select, Upload } from 'antd';
import { InboxOutlined } from '@ant-design/icons';
import type { RangeOverride } from '@ecrf/core';
import { crfRecordApi } from '../../../api/crf.api';
import { recognitionApi } from '../../../api/recognition.api';
import { COMMON_TEXT } from '../../../locales/common.zh-CN';
import { RECOGNITION_TEXT } from '../../../locales/recognition.zh-CN';
import { photoFile } from './camera-client';
import { CameraPanel, useDocumentCamera } from './camera-panel';
import type { IdentifyTemplate } from './identify-templates';
import { RecognitionFailure, RECOGNITION_FAILED, recogniseImage, type RecognitionOutcome } from './recognise-flow';
import { RecognitionReview } from './recognition-review';
import { useRecognitionReview } from './use-recognition-review';
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
  /** 参考范围: the patient's site ranges the form is judged by; recognition judges a row by them too. */
  siteRanges?: Readonly<Record<string, RangeOverride>>;
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
  const camera = useDocumentCamera(open);
  const [templateKey, setTemplateKey] = useState<string | undefined>(undefined);
  const [mode, setMode] = useState<IdentifyMode>(1);
  const [file, setFile] = useState<File | null>(null);
  const [fileUrl, setFileUrl] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const review = useRecognitionReview();
  /** Counts the dialog's closings: a recognition that ends after its dialog was closed fills nothing. */
  const closings = useRef(0);

  const single = templates.length === 1 ? templates[0] : undefined;
  const template = single ?? templates.find((tpl) => tpl.key === templateKey);

  useEffect(() => {
    if (!fileUrl) return;
    return () => URL.revokeObjectURL(fileUrl);
  }, [fileUrl]);

  const reset = () => {
    setFile(null);
    setFileUrl(null);
    camera.setPhoto(null);
    setBusy(false);
    review.clear();
  };

  const finish = () => {
    // RECOG-13: the dialog closes on completion.
    closings.current += 1;
    camera.close();
    reset();
    onClose();
  };

  /** A reviewed recognition left without filling: the page still learns of it (its source image, SDV). */
  const abandonReview = () => {
    const left = review.nothingChosen();
    if (left) props.onRecognised(left);
    review.clear();
  };

  const fillChosen = () => {
    const chosen = review.chosen();
    if (!chosen) return;
    props.onRecognised(chosen);
    void message.success(t.success);
    finish();
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
      if (!camera.photo) {
        void message.warning(t.noPhoto);
        return;
      }
      source = photoFile(camera.photo.base64, camera.photo.takenAt);
    }
    setBusy(true);
    const closed = closings.current;
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
        props.siteRanges,
      );
      if (closings.current !== closed) {
        props.onRecognised({ ...outcome, filled: [], values: {} });
        return;
      }
      setBusy(false);
      if (outcome.filled.length > 0) {
        // Nothing is filled before the nurse has seen each value beside its crop of the report.
        review.show(outcome, template.scope);
        return;
      }
      props.onRecognised(outcome);
      void message.warning(t.nothingMatched);
      finish();
    } catch (error) {
      void message.error(error instanceof RecognitionFailure ? error.message : RECOGNITION_FAILED);
      setBusy(false);
    }
  };

  return (
    <Modal
      open={open}
      title={t.title}
      width={review.outcome ? 1100 : 760}
      onCancel={() => {
        abandonReview();
        finish();
      }}
      okText={t.recognise}
      cancelText={COMMON_TEXT.cancel}
      okButtonProps={{ loading: busy }}
      onOk={() => void recognise()}
      footer={
        review.outcome
          ? [
              <Button
                key="cancel"
                onClick={() => {
                  abandonReview();
                  finish();
                }}
              >
                {COMMON_TEXT.cancel}
              </Button>,
              <Button key="again" onClick={abandonReview}>
                {t.recogniseAgain}
              </Button>,
              <Button key="fill" type="primary" disabled={review.selected.size === 0} onClick={fillChosen}>
                {t.fillSelected}
              </Button>,
            ]
          : undefined
      }
      destroyOnHidden
      className={review.outcome ? 'recognition-dialog recognition-dialog-review' : 'recognition-dialog'}
    >
      {review.outcome ? (
        <RecognitionReview
          rows={review.rows}
          selected={review.selected}
          onToggle={review.toggle}
          unmatched={review.outcome.unmatched}
        />
      ) : (
        <>
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
                  if (next === 1) camera.close();
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
              <Upload.Dragger
                accept={ACCEPT}
                multiple={false}
                maxCount={1}
                showUploadList={false}
                beforeUpload={pickFile}
              >
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
            <CameraPanel camera={camera} />
          )}
        </>
      )}
    </Modal>
  );
}
