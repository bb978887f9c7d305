import { MediaUpload } from './media-upload';
import type { ControlProps } from './widget-types';

/** 视频上传: entries { videoTime, remarks, dialogVideoUrl } stored as a JSON string; videos under 500 MB. */
export function VideoUploadWidget(props: ControlProps) {
  return <MediaUpload {...props} kind="video" />;
}
