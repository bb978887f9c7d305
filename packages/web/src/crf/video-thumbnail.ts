import { THUMBNAIL_SUFFIX } from '../utils/file-values';

/** Where the first frame is taken: a hair past 0, since some encoders leave frame 0 black. */
const FRAME_SECONDS = 0.1;
const MAX_EDGE = 640;

/**
 * UPL-17: the video's first frame as a JPEG named `<video file name>_thumbnail.jpg`, drawn by the browser (a
 * <video> seeked to 0.1 s, painted on a canvas). Null when the browser cannot decode the video: the widget then
 * shows the video itself, as before.
 */
export async function firstFrameJpeg(video: File): Promise<File | null> {
  const url = URL.createObjectURL(video);
  const element = document.createElement('video');
  element.muted = true;
  element.preload = 'auto';
  element.playsInline = true;
  try {
    await new Promise<void>((resolve, reject) => {
      element.onloadeddata = () => resolve();
      element.onerror = () => reject(new Error('video'));
      element.src = url;
    });
    await new Promise<void>((resolve, reject) => {
      element.onseeked = () => resolve();
      element.onerror = () => reject(new Error('video'));
      element.currentTime = Math.min(FRAME_SECONDS, element.duration || FRAME_SECONDS);
    });
    const scale = Math.min(1, MAX_EDGE / Math.max(element.videoWidth, element.videoHeight, 1));
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(element.videoWidth * scale));
    canvas.height = Math.max(1, Math.round(element.videoHeight * scale));
    const context = canvas.getContext('2d');
    if (!context || element.videoWidth === 0) return null;
    context.drawImage(element, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/jpeg', 0.8));
    return blob ? new File([blob], `${video.name}${THUMBNAIL_SUFFIX}`, { type: 'image/jpeg' }) : null;
  } catch {
    return null;
  } finally {
    element.removeAttribute('src');
    URL.revokeObjectURL(url);
  }
}
