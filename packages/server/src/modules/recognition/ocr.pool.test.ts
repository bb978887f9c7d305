import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createOcrPool, OcrRefused, type OcrPool } from './ocr.pool.js';
import { pdfContentBomb, pdfHugePage, pdfImageBomb, peakMemory, pngBomb } from './recognition-bombs.js';

/**
 * The OCR process's bounds (docs/recognition.md, "Bounds"): images refused from their declared size before a pixel
 * is decoded, and a task that outruns its time or memory bound killed with its process. Each test prints what the
 * bomb cost: the server's (this process's) and the OCR process's peak resident memory. Measured before the bounds,
 * the 1.5 KB PDF image bomb took the server to 4.5 GB for 24 s and the content bomb to 1.4 GB per 500 MB of spaces.
 */
const pools: OcrPool[] = [];
const pool = (limits: Parameters<typeof createOcrPool>[0] = {}) => {
  const created = createOcrPool(limits);
  pools.push(created);
  return created;
};
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
});

async function refusal(ocr: OcrPool, image: Buffer) {
  const started = performance.now();
  let pid: number | undefined;
  const measured = await peakMemory(
    () => (pid = ocr.processId() ?? pid),
    () => ocr.read(image),
  );
  const seconds = (performance.now() - started) / 1000;
  expect(measured.outcome.status).toBe('rejected');
  const reason = measured.outcome.status === 'rejected' ? measured.outcome.reason : undefined;
  expect(reason).toBeInstanceOf(OcrRefused);
  return { reason: (reason as OcrRefused).reason, seconds, pid, ...measured };
}

const print = (what: string, r: Awaited<ReturnType<typeof refusal>>) =>
  console.log(
    `${what}: ${r.reason} after ${r.seconds.toFixed(1)} s; server ${r.server.before} → ${r.server.peak} MB, OCR process peak ${r.ocr.peak} MB`,
  );

describe('refused from the declared size, before decoding', () => {
  const ocr = pool();

  it('a PNG whose header claims 30 000 × 30 000 pixels (110 KB) is refused from its header', async () => {
    const png = await pngBomb(30_000);
    expect(png.length).toBeLessThan(150_000);
    const r = await refusal(ocr, png);
    print(`PNG ${Math.round(png.length / 1024)} KB claiming 30000 × 30000`, r);
    expect(r.reason).toBe('too-large');
    // Decoded it would be 900 MB at one byte a pixel: the process holds node and sharp, nothing of the image.
    expect(r.ocr.peak).toBeLessThan(600);
    expect(r.server.peak - r.server.before).toBeLessThan(100);
  });

  it('a PDF whose page is 200 000 points square is refused before the page is drawn', async () => {
    const r = await refusal(ocr, pdfHugePage());
    print('PDF page 200000 × 200000 pt', r);
    expect(r.reason).toBe('too-large');
  });

  it('a 1.5 KB PDF whose image claims 20 000 × 20 000 pixels is refused before pdf.js decodes the image', async () => {
    const pdf = await pdfImageBomb(20_000);
    expect(pdf.length).toBeLessThan(4_000);
    const r = await refusal(ocr, pdf);
    print(`PDF ${pdf.length} B with a 20000 × 20000 image`, r);
    expect(r.reason).toBe('too-large');
    // pdf.js and its canvas load (about 400 MB); the image's 400 MB of grey and 1.6 GB of RGBA are never made.
    expect(r.ocr.peak).toBeLessThan(1000);
    expect(r.server.peak - r.server.before).toBeLessThan(100);
    // Refused, not stopped: the process serves the next image.
    expect(ocr.processId()).toBeDefined();
  });
});

describe('stopped by the bounds: the runaway task ends with its process', () => {
  it('the time bound kills a task still running and the next image gets a new process', async () => {
    const ocr = pool({ timeoutMs: 3000 });
    const bomb = await pdfContentBomb();
    const r = await refusal(ocr, bomb);
    print(`PDF ${bomb.length} B inflating to 2 GB of content, 3 s bound`, r);
    expect(r.reason).toBe('timeout');
    expect(r.seconds).toBeLessThan(10);
    expect(ocr.processId()).toBeUndefined();
    // Answered by a new process (an image refused from its header: no models to load within the 3 s).
    await expect(ocr.read(await pngBomb(30_000))).rejects.toMatchObject({ reason: 'too-large' });
    expect(ocr.processId()).toBeDefined();
  }, 120_000);

  it('the memory bound kills a task whose process outgrows it, and gives the memory back', async () => {
    const ocr = pool({ memoryMb: 600 });
    const bomb = await pdfContentBomb();
    const r = await refusal(ocr, bomb);
    print(`PDF ${bomb.length} B inflating to 2 GB of content, 600 MB bound`, r);
    expect(r.reason).toBe('memory');
    // Sampled every 100 ms: stopped within a little more than the bound of what it had at the start.
    expect(r.ocr.peak).toBeLessThan(600 + 400);
    expect(r.server.peak - r.server.before).toBeLessThan(100);
    expect(r.pid).toBeDefined();
    expect(fs.existsSync(`/proc/${r.pid}`)).toBe(false);
  }, 120_000);
});
