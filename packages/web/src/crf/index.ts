/** The CRF renderer (CONVENTIONS: it renders, @ecrf/core decides). */
export { CrfForm, type CrfFormContext, type CrfFormProps } from './crf-form';
export {
  cellKey,
  type ItemMark,
  type ServerErrors,
  type UploadHandler,
  type UploadKind,
  type UploadResult,
} from './crf-store';
export { VIDEO_MAX_BYTES } from './upload-rules';
export { revealCrfItem, useIdleCount, type ProgressiveOptions } from './progressive';
export { CrfWarmup } from './warmup';
