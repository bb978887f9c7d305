/**
 * Builds a minimal uncompressed DICOM Part 10 file by hand (explicit VR little endian), for tests: a 128-byte
 * preamble, DICM, the file meta group, then the image attributes and the pixel data.
 */
export interface TestDicom {
  rows: number;
  columns: number;
  frames?: number;
  /** 16-bit unsigned values, frame after frame, row by row. */
  pixels: Uint16Array;
  pixelSpacing?: [number, number];
  window?: [number, number];
  syntax?: string;
}

const enc = new TextEncoder();

function pad(text: string, fill: string): Uint8Array {
  return enc.encode(text.length % 2 ? text + fill : text);
}

function element(group: number, el: number, vr: string, value: Uint8Array): Uint8Array {
  const long = ['OB', 'OW', 'OF', 'SQ', 'UT', 'UN'].includes(vr);
  const head = new Uint8Array(long ? 12 : 8);
  const view = new DataView(head.buffer);
  view.setUint16(0, group, true);
  view.setUint16(2, el, true);
  head[4] = vr.charCodeAt(0);
  head[5] = vr.charCodeAt(1);
  if (long) view.setUint32(8, value.length, true);
  else view.setUint16(6, value.length, true);
  const out = new Uint8Array(head.length + value.length);
  out.set(head);
  out.set(value, head.length);
  return out;
}

const us = (n: number) => new Uint8Array(new Uint16Array([n]).buffer);
const ul = (n: number) => new Uint8Array(new Uint32Array([n]).buffer);
const concat = (parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

export function buildDicom(file: TestDicom): Uint8Array {
  const syntax = file.syntax ?? '1.2.840.10008.1.2.1';
  const metaBody = concat([
    element(0x0002, 0x0001, 'OB', new Uint8Array([0, 1])),
    element(0x0002, 0x0002, 'UI', pad('1.2.840.10008.5.1.4.1.1.1', '\0')),
    element(0x0002, 0x0003, 'UI', pad('1.2.826.0.1.3680043.2.1125.1', '\0')),
    element(0x0002, 0x0010, 'UI', pad(syntax, '\0')),
  ]);
  const meta = concat([element(0x0002, 0x0000, 'UL', ul(metaBody.length)), metaBody]);
  const attrs: Uint8Array[] = [
    element(0x0008, 0x0060, 'CS', pad('DX', ' ')),
    element(0x0028, 0x0002, 'US', us(1)),
    element(0x0028, 0x0004, 'CS', pad('MONOCHROME2', ' ')),
    element(0x0028, 0x0008, 'IS', pad(String(file.frames ?? 1), ' ')),
    element(0x0028, 0x0010, 'US', us(file.rows)),
    element(0x0028, 0x0011, 'US', us(file.columns)),
  ];
  if (file.pixelSpacing) {
    attrs.push(element(0x0028, 0x0030, 'DS', pad(`${file.pixelSpacing[0]}\\${file.pixelSpacing[1]}`, ' ')));
  }
  attrs.push(
    element(0x0028, 0x0100, 'US', us(16)),
    element(0x0028, 0x0101, 'US', us(12)),
    element(0x0028, 0x0102, 'US', us(11)),
    element(0x0028, 0x0103, 'US', us(0)),
  );
  if (file.window) {
    attrs.push(
      element(0x0028, 0x1050, 'DS', pad(String(file.window[0]), ' ')),
      element(0x0028, 0x1051, 'DS', pad(String(file.window[1]), ' ')),
    );
  }
  attrs.push(
    element(0x7fe0, 0x0010, 'OW', new Uint8Array(file.pixels.buffer, file.pixels.byteOffset, file.pixels.byteLength)),
  );
  return concat([new Uint8Array(128), enc.encode('DICM'), meta, ...attrs]);
}
