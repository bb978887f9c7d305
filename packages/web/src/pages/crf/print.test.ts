import { afterEach, describe, expect, it, vi } from 'vitest';
import { dicomViewerUrl, PRINT_DELAY_MS, printCrf, printInHiddenFrame, type PrintDeps } from './print';

afterEach(() => {
  vi.useRealTimers();
});

describe('printing', () => {
  it('PRINT-12/PRINT-13: the template document prints through a hidden frame, 100 ms after the frame is created', () => {
    vi.useFakeTimers();
    // A detached body: the test DOM does not load frame pages.
    const body = document.createElement('div');
    const doc = { createElement: document.createElement.bind(document), body } as unknown as Document;
    const frame = printInHiddenFrame(new Blob(['%PDF-1.4'], { type: 'application/pdf' }), doc);
    expect(PRINT_DELAY_MS).toBe(100);
    expect(body.contains(frame)).toBe(true);
    expect(frame.style.visibility).toBe('hidden');
    const print = vi.fn();
    Object.defineProperty(frame, 'contentWindow', { value: { print, focus: vi.fn() } });
    vi.advanceTimersByTime(99);
    expect(print).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(print).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(60_000);
    expect(body.contains(frame)).toBe(false);
  });

  it('CRF-16: the imaging viewer opens for the subject identification code', () => {
    expect(dicomViewerUrl('LSS-0001')).toBe('/pacs/oviyam2/viewer.html?patientID=LSS-0001');
    expect(dicomViewerUrl('A&B')).toBe('/pacs/oviyam2/viewer.html?patientID=A%26B');
  });
});

describe('the 打印 button', () => {
  const params = { subjectRecordId: 7, crfId: 3, crfDataRecordId: 41 };
  const deps = (hasTemplate: boolean, pdf: boolean) => {
    const pdfBlob = new Blob(['%PDF']);
    const docxBlob = new Blob(['PK']);
    const d = {
      hasTemplate: vi.fn(async () => hasTemplate),
      document: vi.fn(async (_p: unknown, format: 'pdf' | 'docx') => {
        if (format === 'pdf' && !pdf) throw new Error('服务器未安装 LibreOffice');
        return format === 'pdf' ? pdfBlob : docxBlob;
      }),
      openPreview: vi.fn(),
      printFrame: vi.fn(),
      save: vi.fn(),
    } satisfies PrintDeps;
    return { d, pdfBlob, docxBlob };
  };

  it('PRINT-11/PRINT-14: without a template the limited-page 打印预览 opens', async () => {
    const { d } = deps(false, true);
    expect(await printCrf(params, d)).toBe('preview');
    expect(d.hasTemplate).toHaveBeenCalledWith(3);
    expect(d.openPreview).toHaveBeenCalled();
    expect(d.document).not.toHaveBeenCalled();
  });

  it('PRINT-12: with a template the filled document prints through the hidden frame', async () => {
    const { d, pdfBlob } = deps(true, true);
    expect(await printCrf(params, d)).toBe('printed');
    expect(d.document).toHaveBeenCalledWith(params, 'pdf');
    expect(d.printFrame).toHaveBeenCalledWith(pdfBlob);
    expect(d.openPreview).not.toHaveBeenCalled();
  });

  it('PRINT-12: without a PDF converter on the server the Word document is saved to print', async () => {
    const { d, docxBlob } = deps(true, false);
    expect(await printCrf(params, d)).toBe('saved');
    expect(d.save).toHaveBeenCalledWith(docxBlob);
    expect(d.printFrame).not.toHaveBeenCalled();
  });
});
