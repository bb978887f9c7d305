/**
 * Decompression bombs for the recognition tests: files of a few kilobytes that claim, or inflate to, gigabytes.
 * Test tooling only.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';

type PdfObject = string | { dict: string; stream: Buffer };

/** A PDF of these objects, numbered from 1 (the first is the catalog); streams are kept byte for byte. */
export function pdfOf(objects: readonly PdfObject[]): Buffer {
  const parts: Buffer[] = [];
  let length = 0;
  const push = (part: string | Buffer) => {
    const bytes = typeof part === 'string' ? Buffer.from(part, 'latin1') : part;
    parts.push(bytes);
    length += bytes.length;
  };
  push('%PDF-1.4\n');
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(length);
    if (typeof o === 'string') {
      push(`${i + 1} 0 obj\n${o}\nendobj\n`);
    } else {
      push(`${i + 1} 0 obj\n<< ${o.dict} /Length ${o.stream.length} >>\nstream\n`);
      push(o.stream);
      push('\nendstream\nendobj\n');
    }
  });
  const xref = length;
  push(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`);
  push(offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join(''));
  push(`trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}

/** `size` bytes of `byte`, zlib-compressed a megabyte at a time (the whole is never held). */
export async function zlibOf(size: number, byte = 0): Promise<Buffer> {
  const deflate = zlib.createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => out.push(chunk));
  const ended = new Promise((resolve) => deflate.on('end', resolve));
  const chunk = Buffer.alloc(1 << 20, byte);
  for (let left = size; left > 0; left -= chunk.length) {
    if (!deflate.write(chunk.subarray(0, Math.min(left, chunk.length)))) {
      await new Promise((resolve) => deflate.once('drain', resolve));
    }
  }
  deflate.end();
  await ended;
  return Buffer.concat(out);
}

/** Compressed twice: a stream of zeros compresses about a thousandfold each time. */
const twiceDeflated = async (size: number, byte = 0) => zlib.deflateSync(await zlibOf(size, byte), { level: 9 });

function onePage(mediaBox: string, content: string | Buffer, resources = '', more: PdfObject[] = []): Buffer {
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [${mediaBox}] /Contents 4 0 R /Resources << ${resources} >> >>`,
    typeof content === 'string'
      ? { dict: '', stream: Buffer.from(content, 'latin1') }
      : { dict: '/Filter [/FlateDecode /FlateDecode]', stream: content },
    ...more,
  ]);
}

/** A page 200 000 points square (70 metres) with a line of text: 0.6 KB. */
export function pdfHugePage(): Buffer {
  return onePage('0 0 200000 200000', 'BT /F1 28 Tf 60 760 Td (WBC 6.52) Tj ET', '/Font << /F1 5 0 R >>', [
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);
}

/**
 * An A4 page drawing one grey image of side × side pixels whose data, zeros, is deflated twice: 1.5 KB that pdf.js
 * would decode to side² bytes and then to side² × 4 (20 000: 400 MB, then 1.6 GB).
 */
export async function pdfImageBomb(side = 20_000): Promise<Buffer> {
  const image = await twiceDeflated(side * side);
  return onePage('0 0 595 842', 'q 595 0 0 842 0 0 cm /Im1 Do Q', '/XObject << /Im1 5 0 R >>', [
    {
      dict: `/Type /XObject /Subtype /Image /Width ${side} /Height ${side} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter [/FlateDecode /FlateDecode]`,
      stream: image,
    },
  ]);
}

/** An A4 page whose content stream is `size` spaces deflated twice: 2 GB in 3.7 KB, nothing whose size is declared. */
export async function pdfContentBomb(size = 2_000_000_000): Promise<Buffer> {
  return onePage('0 0 595 842', await twiceDeflated(size, 0x20));
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A black-and-white PNG whose header says side × side (30 000: 900 M pixels), its rows zeros: about 110 KB. */
export async function pngBomb(side = 30_000): Promise<Buffer> {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 1; // bit depth
  header[9] = 0; // greyscale
  const rows = await zlibOf(side * (1 + Math.ceil(side / 8)));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', rows),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A process's resident memory in MiB (Linux /proc), 0 when it cannot be read. */
export function residentMb(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? 0 : Math.round(Number(kb) / 1024);
  } catch {
    return 0;
  }
}

/**
 * The peak resident memory (MiB) of the test's own process (the server) and of the OCR process while `run` runs,
 * sampled every 20 ms: what a bomb costs.
 */
export async function peakMemory<T>(
  ocrProcess: () => number | undefined,
  run: () => Promise<T>,
): Promise<{ outcome: PromiseSettledResult<T>; server: { before: number; peak: number }; ocr: { peak: number } }> {
  const server = { before: residentMb(process.pid), peak: residentMb(process.pid) };
  const ocr = { peak: 0 };
  const sample = () => {
    server.peak = Math.max(server.peak, residentMb(process.pid));
    ocr.peak = Math.max(ocr.peak, residentMb(ocrProcess()));
  };
  const timer = setInterval(sample, 20);
  try {
    const [outcome] = await Promise.allSettled([run()]);
    sample();
    return { outcome, server, ocr };
  } finally {
    clearInterval(timer);
  }
}
