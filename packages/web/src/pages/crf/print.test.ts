import { afterEach, describe, expect, it, vi } from 'vitest';
import { dicomViewerUrl, PRINT_DELAY_MS, printInHiddenFrame } from './print';

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
