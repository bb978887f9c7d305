import { Readable } from 'node:stream';
import { spineCobbValue, type SpineCobbValue } from '@ecrf/core';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../shared/app-error.js';
import type { CurrentUser } from '../../shared/current-user.js';
import type { StudyAccess } from '../../shared/study-access.js';
import * as files from '../files/file.service.js';
import { imageSize } from './image-size.js';
import { NO_DETECTOR, onnxDetector, type SpineDetector } from './spine-detector.js';

/** forms §8 (wrong measurement image type). */
export const SPINE_IMAGE_TYPE = '请上传JPG/PNG/BMP 格式!';
/** Ours (docs/spine-tools.md): the answer when no landmark model is installed. */
export const SPINE_NO_MODEL = '未安装脊柱自动识别模型，已进入半自动模式：请拖动椎体角点完成标注';
export const SPINE_RECOGNISED = '识别成功，请仔细核对关键点';

const detectors = new WeakMap<AppContext, Promise<SpineDetector>>();

/** Tests put a detector of their own in place of the configured model. */
export function useSpineDetector(ctx: AppContext, detector: SpineDetector): void {
  detectors.set(ctx, Promise.resolve(detector));
}

function detectorOf(ctx: AppContext, log: (msg: string) => void): Promise<SpineDetector> {
  let detector = detectors.get(ctx);
  if (!detector) {
    const model = ctx.config.spineModel;
    detector = model
      ? onnxDetector(model).catch(() => {
          // The path only, never an image: logs hold no clinical data.
          log(`spine model could not be loaded from ${model}; the Cobb tool stays semi-automatic`);
          return NO_DETECTOR;
        })
      : Promise.resolve(NO_DETECTOR);
    detectors.set(ctx, detector);
  }
  return detector;
}

/** The answer of getprediction: the result of forms §3, or, with no model, the image alone and no landmarks. */
export type SpinePrediction =
  | (SpineCobbValue & { model: true })
  | {
      model: false;
      curve_type: null;
      angles: null;
      midpoint_lines: [];
      detections: [];
      landmarks: [];
      imgURL: string;
      imgWidth: number;
      imgHeight: number;
    };

export interface PredictionInput {
  /** The X-ray's bytes (multipart field image), when sent. */
  image: Buffer | null;
  fileName: string;
  /** A study file already uploaded through the form: its study is the caller's, and it is the image when none is sent. */
  fileKey: string | null;
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * SPA-03: landmarks for an X-ray. A new image is stored as a file of the study (imgURL is its key); an image
 * already stored is named by its key. The angles always come from core's cobbAngles.
 */
export async function predict(
  ctx: AppContext,
  user: CurrentUser,
  access: StudyAccess,
  input: PredictionInput,
  log: (msg: string) => void,
): Promise<{ data: SpinePrediction; msg: string }> {
  let image = input.image;
  let imgURL: string;
  if (input.fileKey !== null) {
    const stored = await files.readFile(ctx, user, access, input.fileKey);
    if (image === null) image = await readAll(stored.stream);
    else stored.stream.destroy();
    imgURL = input.fileKey;
  } else {
    if (image === null) throw AppError.badRequest('spine.image_missing', '请选择要上传的文件');
    if (imageSize(image) === null) throw AppError.badRequest('spine.image_type', SPINE_IMAGE_TYPE);
    const stored = await files.receiveFile(ctx, Readable.from([image]), input.fileName);
    await files.recordFile(ctx, user, access.studyId, stored, input.fileName);
    imgURL = stored.fileKey;
  }
  const size = imageSize(image);
  if (size === null) throw AppError.badRequest('spine.image_type', SPINE_IMAGE_TYPE);
  const detector = await detectorOf(ctx, log);
  if (!detector.available) {
    return {
      msg: SPINE_NO_MODEL,
      data: {
        model: false,
        curve_type: null,
        angles: null,
        midpoint_lines: [],
        detections: [],
        landmarks: [],
        imgURL,
        imgWidth: size.width,
        imgHeight: size.height,
      },
    };
  }
  const found = await detector.detect(image, size);
  if (found.landmarks.length < 16 || found.landmarks.length % 8 !== 0 || !found.landmarks.every(Number.isFinite)) {
    throw AppError.badRequest('spine.no_landmarks', '识别失败');
  }
  const value = spineCobbValue({
    landmarks: found.landmarks.map((v) => Math.min(1, Math.max(0, v))),
    imgWidth: size.width,
    imgHeight: size.height,
    imgURL,
    detections: found.detections,
  });
  return { msg: SPINE_RECOGNISED, data: { ...value, model: true } };
}
