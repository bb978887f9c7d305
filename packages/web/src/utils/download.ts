import type { AxiosResponse } from 'axios';

/**
 * The file name a download answer announces: RFC 6266 `filename*=UTF-8''…` (how Chinese names
 * travel) before the plain `filename="…"`, else the fallback.
 */
export function fileNameFromDisposition(header: string | null | undefined, fallback: string): string {
  if (!header) return fallback;
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
  if (extended) {
    try {
      return decodeURIComponent(extended[2].trim().replace(/^"|"$/g, ''));
    } catch {
      // a malformed escape: fall through to the plain name
    }
  }
  const plain = /filename\s*=\s*("([^"]*)"|[^;]+)/i.exec(header);
  const name = plain ? (plain[2] ?? plain[1]).trim() : '';
  return name || fallback;
}

/** Saves a blob under a file name through a passing link (a report, an exported image, a document to print). */
export function saveBlob(blob: Blob, fileName: string, doc: Document = document): void {
  const url = URL.createObjectURL(blob);
  const link = doc.createElement('a');
  link.href = url;
  link.download = fileName;
  doc.body.appendChild(link);
  link.click();
  link.remove();
  // Give the browser time to start the download (a large file, a slow disk) before the URL is released.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Saves a blob answer of `http.download` under the name the server gave, or the fallback. */
export function saveDownload(response: AxiosResponse<Blob>, fallback: string): void {
  const header = response.headers['content-disposition'] as string | undefined;
  saveBlob(response.data, fileNameFromDisposition(header, fallback));
}
