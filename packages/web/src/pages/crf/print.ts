/** forms §4 "Print": the document prints this long after its hidden frame is created. */
export const PRINT_DELAY_MS = 100;
/** The frame and its blob are kept long enough for the print dialog, then dropped. */
const FRAME_LIFETIME_MS = 60_000;

/**
 * PRINT-12/PRINT-13: prints a document (the filled template as PDF) through a hidden frame,
 * 100 ms after the frame is created.
 */
export function printInHiddenFrame(blob: Blob, doc: Document = document): HTMLIFrameElement {
  const url = URL.createObjectURL(blob);
  const frame = doc.createElement('iframe');
  frame.className = 'crf-print-frame';
  frame.setAttribute('aria-hidden', 'true');
  frame.setAttribute('tabindex', '-1');
  frame.style.cssText = 'position:fixed;right:0;bottom:0;width:0;height:0;border:0;visibility:hidden;';
  frame.src = url;
  doc.body.appendChild(frame);
  setTimeout(() => {
    try {
      frame.contentWindow?.focus();
      frame.contentWindow?.print();
    } catch {
      // A viewer that refuses to print from a frame leaves the user the download below.
    }
  }, PRINT_DELAY_MS);
  setTimeout(() => {
    frame.remove();
    URL.revokeObjectURL(url);
  }, FRAME_LIFETIME_MS);
  return frame;
}

/** The viewer of the imaging (DICOM) button for a patient (CRF-16). */
export function dicomViewerUrl(identificationCode: string): string {
  return `/pacs/oviyam2/viewer.html?patientID=${encodeURIComponent(identificationCode)}`;
}

export interface PrintParams {
  subjectRecordId: number;
  crfId: number;
  crfDataRecordId: number | null;
}

export interface PrintDeps {
  /** PRINT-11: whether the form has a Word template. */
  hasTemplate: (crfId: number) => Promise<boolean>;
  /** PRINT-12: the filled template, as PDF when the server can make one. */
  document: (params: PrintParams, format: 'pdf' | 'docx') => Promise<Blob>;
  openPreview: () => void;
  printFrame: (blob: Blob) => void;
  save: (blob: Blob) => void;
}

/**
 * forms §4 "Print": a form with a print template prints the filled document through a hidden
 * frame; without a PDF converter on the server the Word document is saved for printing instead.
 * A form without a template opens the limited-page print preview.
 */
export async function printCrf(params: PrintParams, deps: PrintDeps): Promise<'preview' | 'printed' | 'saved'> {
  if (!(await deps.hasTemplate(params.crfId))) {
    deps.openPreview();
    return 'preview';
  }
  try {
    deps.printFrame(await deps.document(params, 'pdf'));
    return 'printed';
  } catch {
    deps.save(await deps.document(params, 'docx'));
    return 'saved';
  }
}
