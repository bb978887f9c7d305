/**
 * The document camera (高拍仪, forms §7): a service of the camera's SDK on the user's own machine, port
 * 38088, called straight from the browser. Its answers carry the SDK's `code` (0 when the SDK works); the
 * messages of forms §8 tell the nurse which of the SDK, the device or the call itself failed.
 */

/** Where the service listens; a machine whose service uses another address stores it under this key. */
export const CAMERA_BASE_KEY = 'ecrf.cameraBase';
export const DEFAULT_CAMERA_BASE = 'http://127.0.0.1:38088';

/** forms §9: the photo is requested at most 3300 by 2400, quality 100. */
export const PHOTO_REQUEST = { camidx: 0, width: 3300, height: 2400, quality: 100 } as const;

export const CAMERA_MESSAGES = {
  sdk: '请检查设备SDK是否打开',
  device: '请检查设备是否已连接',
  call: '接口获取失败',
} as const;

export type CameraFailure = keyof typeof CAMERA_MESSAGES;

export class CameraError extends Error {
  readonly kind: CameraFailure;
  constructor(kind: CameraFailure) {
    super(CAMERA_MESSAGES[kind]);
    this.name = 'CameraError';
    this.kind = kind;
  }
}

export type FetchLike = (url: string, init?: RequestInit) => Promise<Response>;

export function cameraBase(storage: Pick<Storage, 'getItem'> | undefined = globalThis.localStorage): string {
  const stored = storage?.getItem(CAMERA_BASE_KEY)?.trim();
  return (stored || DEFAULT_CAMERA_BASE).replace(/\/+$/, '');
}

type Answer = Record<string, unknown>;

/** The SDK's codes come as numbers or strings ("0"). */
const sdkOk = (answer: Answer) => Number(answer.code) === 0;

export class CameraClient {
  constructor(
    readonly base: string,
    private readonly fetchFn: FetchLike = (url, init) => fetch(url, init),
  ) {}

  /** The live view: opening it opens camera 0's video; an <img> shows it (MJPEG). */
  streamUrl(nonce: number | string = Date.now()): string {
    return `${this.base}/video=stream&camidx=0&_n=${nonce}`;
  }

  private async call(path: string, method: 'GET' | 'POST', body?: unknown): Promise<Answer> {
    let answer: unknown;
    try {
      const res = await this.fetchFn(`${this.base}/${path}`, {
        method,
        // A simple request (text/plain): no preflight the SDK service might not answer.
        ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'Content-Type': 'text/plain' } }),
      });
      if (!res.ok) throw new CameraError('call');
      answer = await res.json();
    } catch {
      throw new CameraError('call');
    }
    if (typeof answer !== 'object' || answer === null) throw new CameraError('call');
    if (!sdkOk(answer as Answer)) throw new CameraError('sdk');
    return answer as Answer;
  }

  /** POST device=isconnect: the SDK answers how many devices are plugged in. */
  async ensureConnected(): Promise<void> {
    const answer = await this.call('device=isconnect', 'POST');
    if (!(Number(answer.data) > 0)) throw new CameraError('device');
  }

  /** POST video=status: whether camera 0's video is open. */
  async isVideoOpen(): Promise<boolean> {
    const answer = await this.call('video=status', 'POST');
    return answer.video0 === 'ok';
  }

  /** GET video=close?camidx=0. */
  async close(): Promise<void> {
    await this.call('video=close?camidx=0', 'GET');
  }

  /** POST video=grabimage: the photo as base64 JPEG (photoBase64). */
  async grab(): Promise<string> {
    const answer = await this.call('video=grabimage', 'POST', PHOTO_REQUEST);
    const photo = answer.photoBase64;
    if (typeof photo !== 'string' || photo === '') throw new CameraError('call');
    return photo.replace(/^data:image\/\w+;base64,/, '');
  }
}

/** The captured photo as a file to upload, named after the moment it was taken. */
export function photoFile(base64: string, takenAt: Date): File {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  const pad = (n: number) => String(n).padStart(2, '0');
  const stamp = `${takenAt.getFullYear()}${pad(takenAt.getMonth() + 1)}${pad(takenAt.getDate())}${pad(takenAt.getHours())}${pad(takenAt.getMinutes())}${pad(takenAt.getSeconds())}`;
  return new File([bytes], `高拍仪-${stamp}.jpg`, { type: 'image/jpeg' });
}
