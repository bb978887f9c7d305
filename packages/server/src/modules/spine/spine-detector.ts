import type { SpineAutoResult } from '@ecrf/core';

/**
 * Where landmarks come from (docs/spine-tools.md, "Detector contract"). A detector sees the image's bytes and its
 * size and answers 68 corners normalised 0–1 (x values, then y values) and optional boxes; the angles are always
 * computed afterwards by core's cobbAngles, never taken from the model.
 */
export interface SpineDetection {
  landmarks: number[];
  detections: SpineAutoResult['detections'];
}

export interface SpineDetector {
  /** False when no model is installed: the tool opens in the semi-automatic mode. */
  readonly available: boolean;
  detect(image: Buffer, size: { width: number; height: number }): Promise<SpineDetection>;
}

export const NO_DETECTOR: SpineDetector = {
  available: false,
  detect: () => Promise.reject(new Error('no spine model installed')),
};

/** The few parts of onnxruntime-node this uses (loaded on demand: most installations have no model). */
interface OrtTensor {
  data: ArrayLike<number>;
  dims: readonly number[];
}
interface OrtSession {
  inputNames: readonly string[];
  outputNames: readonly string[];
  run(feeds: Record<string, OrtTensor>): Promise<Record<string, OrtTensor>>;
}
interface OrtModule {
  InferenceSession: { create(path: string): Promise<OrtSession> };
  Tensor: new (type: 'float32', data: Float32Array, dims: number[]) => OrtTensor;
}
interface SharpModule {
  (input: Buffer): {
    removeAlpha(): ReturnType<SharpModule>;
    resize(w: number, h: number, o: { fit: 'fill' }): ReturnType<SharpModule>;
    raw(): ReturnType<SharpModule>;
    toBuffer(): Promise<Buffer>;
  };
}

/** The model's input size: the AASCE images' usual resolution, portrait (width 512, height 1024). */
export const MODEL_INPUT = { width: 512, height: 1024 } as const;

const importOptional = (name: string): Promise<unknown> => import(name);

/**
 * An ONNX model run with onnxruntime-node (SPINE_MODEL names the file). Input: `float32 [1, 3, 1024, 512]`, the
 * X-ray resized to 512 × 1024 (width × height), RGB, values 0–1. Outputs: the first is the landmarks,
 * `float32 [1, 136]` (68 x values then 68 y values, normalised to the image); a second, when present, the boxes
 * `float32 [1, 17, 5]` (xmin, ymin, xmax, ymax in normalised coordinates, confidence).
 */
export async function onnxDetector(modelPath: string): Promise<SpineDetector> {
  const ort = (await importOptional('onnxruntime-node')) as OrtModule;
  const sharp = ((await importOptional('sharp')) as { default: SharpModule }).default;
  const session = await ort.InferenceSession.create(modelPath);
  return {
    available: true,
    async detect(image, size) {
      const { width, height } = MODEL_INPUT;
      const rgb = await sharp(image).removeAlpha().resize(width, height, { fit: 'fill' }).raw().toBuffer();
      const plane = width * height;
      const input = new Float32Array(3 * plane);
      for (let i = 0; i < plane; i++) {
        for (let c = 0; c < 3; c++) input[c * plane + i] = rgb[i * 3 + c]! / 255;
      }
      const out = await session.run({
        [session.inputNames[0]!]: new ort.Tensor('float32', input, [1, 3, height, width]),
      });
      const landmarks = Array.from(out[session.outputNames[0]!]!.data).slice(0, 136);
      const boxes = session.outputNames[1] ? Array.from(out[session.outputNames[1]]!.data) : [];
      const detections = [];
      for (let k = 0; k + 4 < boxes.length; k += 5) {
        detections.push({
          xmin: boxes[k]! * size.width,
          ymin: boxes[k + 1]! * size.height,
          xmax: boxes[k + 2]! * size.width,
          ymax: boxes[k + 3]! * size.height,
          confidence: Math.min(1, Math.max(0, boxes[k + 4]!)),
        });
      }
      return { landmarks, detections };
    },
  };
}
