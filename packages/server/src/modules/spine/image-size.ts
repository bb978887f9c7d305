/** The pixel size of a PNG, JPEG or BMP from its header (the X-ray types the spine tools take), or null. */
export function imageSize(bytes: Buffer): { width: number; height: number; type: 'png' | 'jpeg' | 'bmp' } | null {
  if (bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47 && bytes.toString('ascii', 12, 16) === 'IHDR') {
    return positive(bytes.readUInt32BE(16), bytes.readUInt32BE(20), 'png');
  }
  if (bytes.length >= 26 && bytes.toString('ascii', 0, 2) === 'BM') {
    return positive(bytes.readInt32LE(18), Math.abs(bytes.readInt32LE(22)), 'bmp');
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
    let at = 2;
    while (at + 9 < bytes.length) {
      if (bytes[at] !== 0xff) return null;
      const marker = bytes[at + 1]!;
      const length = bytes.readUInt16BE(at + 2);
      // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return positive(bytes.readUInt16BE(at + 7), bytes.readUInt16BE(at + 5), 'jpeg');
      }
      at += 2 + length;
    }
  }
  return null;
}

function positive<T extends 'png' | 'jpeg' | 'bmp'>(width: number, height: number, type: T) {
  return width > 0 && height > 0 ? { width, height, type } : null;
}
