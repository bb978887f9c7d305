import { fileLabel, fileValuesOf, readSpineMeasure, type CrfNode } from '@ecrf/core';
import { fileUrl } from '../../crf/upload-rules';

/** A file the imaging viewer can open: stored with the record, or opened from the user's disk (never uploaded). */
export interface ViewerFile {
  key: string;
  name: string;
  /** Where to fetch it (stored files), or the bytes' source (local files). */
  url: string | null;
  local?: File;
}

/**
 * The images and files attached to a record (forms §3 values): image and file uploads, in rows too, and the X-ray
 * of a spine measurement; each once, in the form's order.
 */
export function recordFiles(
  nodes: readonly CrfNode[],
  values: Readonly<Record<string, unknown>>,
  names?: ReadonlyMap<string, string>,
): ViewerFile[] {
  const seen = new Set<string>();
  const out: ViewerFile[] = [];
  const add = (value: string) => {
    if (!value || seen.has(value)) return;
    seen.add(value);
    out.push({ key: value, name: fileLabel(value, names), url: fileUrl(value) });
  };
  const walk = (list: readonly CrfNode[]) => {
    for (const node of list) {
      const value = node.name ? values[node.name] : undefined;
      if (node.type === 'spineMeasure') {
        const data = readSpineMeasure(value);
        if (data?.imgUrl) add(data.imgUrl);
      } else if (
        node.type === 'imageUpload' ||
        node.type === 'fileUpload' ||
        node.type === 'listGroup' ||
        node.type === 'table'
      ) {
        fileValuesOf(node, value).forEach(add);
      }
      if (node.type === 'section' || node.type === 'group' || node.type === 'card') walk(node.children);
    }
  };
  walk(nodes);
  return out;
}

/** The external viewer of sites that have one (VITE_DICOM_VIEWER_URL), with the patient's identification code. */
export function externalViewerUrl(base: string | undefined, identificationCode: string): string | null {
  const url = base?.trim();
  if (!url) return null;
  return `${url}${url.includes('?') ? '&' : '?'}patientID=${encodeURIComponent(identificationCode)}`;
}
