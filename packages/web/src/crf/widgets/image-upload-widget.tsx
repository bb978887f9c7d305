import { MediaUpload } from './media-upload';
import type { ControlProps } from './widget-types';

/** 图片上传: entries { uploadTime, remarks, dialogImgUrl } stored as a JSON string. */
export function ImageUploadWidget(props: ControlProps) {
  return <MediaUpload {...props} kind="image" />;
}
