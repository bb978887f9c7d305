import type { RangeOverride } from '@ecrf/core';
import { ApiError } from '../../../api/request';
import type { RecognitionJob, RecognitionResult, RecognitionTemp } from '../../../api/recognition.api';
import { fillFromAnswer, type IdentifyTemplate, type RecognitionFill } from './identify-templates';

export const RECOGNITION_FAILED = '识别失败';

export interface RecogniseDeps {
  upload: (file: File) => Promise<{ fileKey: string }>;
  temp: (fileKey: string) => Promise<RecognitionTemp>;
  recognise: (body: { url: string; type: number; index: number; tempId: string }) => Promise<RecognitionResult>;
  job: (jobId: string) => Promise<RecognitionJob>;
  /** Waits between two reads of a job still running. */
  pause: () => Promise<void>;
}

export interface RecognitionOutcome extends RecognitionFill {
  fileKey: string;
  recognitionId: number | null;
}

/** A failed recognition, with the message to show (识别失败, or the server's word that it is not installed). */
export class RecognitionFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecognitionFailure';
  }
}

/** The call answers 202 with a jobId when the job outlives its wait bound: the job is read until it ends. */
const ACCEPTED = 202;
/** 503: the OCR engine is not installed on this server; its message says so, which helps more than 识别失败. */
const NOT_INSTALLED = 503;
/**
 * 422 (an image too large to read safely, a time or memory bound hit) and 429 (too many requests) carry what the
 * person can do about it: shown after 识别失败 so the failure reads as the spec says and the way out is given.
 */
const WITH_REASON = new Set([422, 429]);

function failureText(error: ApiError): string {
  if (error.code === NOT_INSTALLED && error.message) return error.message;
  if (WITH_REASON.has(error.code) && error.message && error.message !== RECOGNITION_FAILED) {
    return `${RECOGNITION_FAILED}：${error.message}`;
  }
  return RECOGNITION_FAILED;
}

async function answerOf(deps: RecogniseDeps, body: Parameters<RecogniseDeps['recognise']>[0]): Promise<unknown> {
  try {
    return await deps.recognise(body);
  } catch (error) {
    if (!(error instanceof ApiError)) throw new RecognitionFailure(RECOGNITION_FAILED);
    const jobId = (error.data as { jobId?: unknown } | null)?.jobId;
    if (error.code !== ACCEPTED || typeof jobId !== 'string') throw new RecognitionFailure(failureText(error));
    for (;;) {
      const job = await deps.job(jobId).catch(() => null);
      if (!job) throw new RecognitionFailure(RECOGNITION_FAILED);
      if (job.state === 'done') return job.result;
      if (job.state !== 'queued' && job.state !== 'running') throw new RecognitionFailure(RECOGNITION_FAILED);
      await deps.pause();
    }
  }
}

/**
 * RECOG-06: the image goes to storage through the usual upload, a tempId is asked for that file, and the
 * recognition call gets { url, type, index, tempId }; the answer is read in the template's shape and matched
 * to the template's items. Nothing is saved: the caller fills the values into the open form.
 */
export async function recogniseImage(
  deps: RecogniseDeps,
  template: IdentifyTemplate,
  file: File,
  /** 参考范围: the patient's site ranges the form is judged by. */
  siteRanges: Readonly<Record<string, RangeOverride>> = {},
): Promise<RecognitionOutcome> {
  let fileKey: string;
  let tempId: string;
  try {
    fileKey = (await deps.upload(file)).fileKey;
    tempId = (await deps.temp(fileKey)).tempId;
  } catch (error) {
    throw new RecognitionFailure(
      error instanceof ApiError && error.message
        ? WITH_REASON.has(error.code)
          ? failureText(error)
          : error.message
        : RECOGNITION_FAILED,
    );
  }
  const data = await answerOf(deps, { url: fileKey, type: template.type, index: template.index, tempId });
  const fill = fillFromAnswer(template, data, siteRanges);
  const id = (data as { recognitionId?: unknown } | null)?.recognitionId;
  return { ...fill, fileKey, recognitionId: typeof id === 'number' ? id : null };
}
