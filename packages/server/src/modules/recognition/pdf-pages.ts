/**
 * The pages of a PDF report drawn as images for the OCR process (recognition.worker.ts): pdf.js on @napi-rs/canvas,
 * in that process. Laboratory systems issue reports of several pages (血常规 on one, 生化 on the next): every page
 * is read, up to MAX_PDF_PAGES; a longer PDF is refused whole rather than read in part, so no analyte is dropped
 * without the nurse knowing. Each page gets the bounds an image gets, checked before anything is decoded.
 */

/**
 * A PDF page's longest side in points: the PDF specification's own implementation limit (14 400 units, 200 inches).
 * A report is A4 (842) or smaller; a page of 200 000 points drawn 2000 pixels wide would be unreadable anyway.
 */
export const MAX_PAGE_POINTS = 14_400;
/**
 * The most pages read of one PDF. A report of one laboratory is one or two pages (a 生化 panel of 40 analytes, or
 * 血常规 and 生化 together); each page costs a read of 5–10 s (twice that read upside down), and the task is
 * stopped at 90 s (ocr.pool.ts). A longer PDF (a whole check-up booklet) is refused: 拆分后重试.
 */
export const MAX_PDF_PAGES = 5;

/**
 * A PDF refused before its pages are read: `too-large`, a page (or an image on it) is larger than the bounds;
 * `too-many-pages`, it has more than MAX_PDF_PAGES pages.
 */
export class PdfRefused extends Error {
  constructor(readonly reason: 'too-large' | 'too-many-pages') {
    super(`pdf refused: ${reason}`);
    this.name = 'PdfRefused';
  }
}

export const isPdf = (data: Uint8Array) =>
  data.length > 5 && data[0] === 0x25 && data[1] === 0x50 && data[2] === 0x44 && data[3] === 0x46; // %PDF

/**
 * pdf.js leaves an image above `maxImageSize` out of the page with nothing but a warning (its worker runs on this
 * thread in Node): the warning is watched for while the pages are drawn, and `check` (after each page, and at the
 * end) refuses the PDF rather than read it without the image.
 */
async function withoutDroppedImages<T>(draw: (check: () => void) => Promise<T>): Promise<T> {
  const warn = console.warn;
  let dropped = false;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].includes('exceeded maximum allowed size')) dropped = true;
    else warn.apply(console, args);
  };
  const check = () => {
    if (dropped) throw new PdfRefused('too-large');
  };
  try {
    const drawn = await draw(check);
    check();
    return drawn;
  } finally {
    console.warn = warn;
  }
}

export interface PageBounds {
  /** The longest side a page is drawn at, in pixels. */
  maxSide: number;
  /** The most pixels an image on a page may declare (pdf.js's `maxImageSize`): larger, the PDF is refused. */
  maxImagePixels: number;
}

interface Canvas {
  canvas: { toBuffer(type: 'image/png'): Buffer };
  context: unknown;
}

/**
 * Every page of a PDF, in order, drawn as a PNG whose longest side is `maxSide`. Checked before any page is drawn:
 * the page count (MAX_PDF_PAGES) and each page's size (MAX_PAGE_POINTS; its canvas is then at most `maxSide` square
 * whatever the page's scale); while drawing, each image's size as its dictionary declares it (`maxImagePixels`).
 */
export async function pdfPages(data: Uint8Array, bounds: PageBounds): Promise<Buffer[]> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const assets = new URL('./', import.meta.resolve('pdfjs-dist/package.json'));
  return withoutDroppedImages(async (check) => {
    const doc = await pdfjs.getDocument({
      data: new Uint8Array(data),
      isEvalSupported: false,
      maxImageSize: bounds.maxImagePixels,
      // The warning above is how a dropped image is known: not silenced whatever the default.
      verbosity: pdfjs.VerbosityLevel.WARNINGS,
      // Fonts and character maps from the package itself, never fetched.
      standardFontDataUrl: new URL('standard_fonts/', assets).pathname,
      cMapUrl: new URL('cmaps/', assets).pathname,
      cMapPacked: true,
    }).promise;
    try {
      if (doc.numPages > MAX_PDF_PAGES) throw new PdfRefused('too-many-pages');
      const pages = [];
      for (let n = 1; n <= doc.numPages; n++) {
        const page = await doc.getPage(n);
        // At scale 1 the viewport is the page in points (its UserUnit applied).
        const base = page.getViewport({ scale: 1 });
        const longest = Math.max(base.width, base.height);
        if (!(base.width > 0 && base.height > 0 && longest <= MAX_PAGE_POINTS)) throw new PdfRefused('too-large');
        const viewport = page.getViewport({ scale: bounds.maxSide / longest });
        const width = Math.ceil(viewport.width);
        const height = Math.ceil(viewport.height);
        if (width > bounds.maxSide || height > bounds.maxSide) throw new PdfRefused('too-large');
        pages.push({ page, viewport, width, height });
      }
      const factory = doc.canvasFactory as { create(w: number, h: number): Canvas };
      const drawn: Buffer[] = [];
      for (const { page, viewport, width, height } of pages) {
        const { canvas, context } = factory.create(width, height);
        await page.render({ canvasContext: context, viewport, canvas } as unknown as Parameters<typeof page.render>[0])
          .promise;
        check();
        drawn.push(canvas.toBuffer('image/png'));
        page.cleanup();
      }
      return drawn;
    } finally {
      await doc.destroy();
    }
  });
}
