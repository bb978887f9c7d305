import { http } from '../../../api/request';

/** The answer of POST /spine_cobb/v2/getprediction (forms §3, §7; docs/spine-tools.md). */
export interface SpinePrediction {
  model: boolean;
  curve_type: 'C' | 'S' | null;
  landmarks: number[];
  detections: Array<{ xmin: number; ymin: number; xmax: number; ymax: number; confidence: number }>;
  imgURL: string;
  imgWidth: number;
  imgHeight: number;
}

/** SPA-03: the X-ray already stored through the form's upload (its key), sent again as the multipart field image. */
export function getPrediction(fileKey: string, image: File) {
  const form = new FormData();
  form.append('image', image);
  return http.post<SpinePrediction>('/spine_cobb/v2/getprediction', form, { params: { fileKey }, silent: true });
}
