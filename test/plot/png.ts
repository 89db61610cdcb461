/**
 * Test helper: a small PNG decoder (8-bit greyscale, RGB, RGBA, grey+alpha; non-interlaced) over
 * node:zlib, so tests can read back PNG files the CLI or Chromium wrote. Checked against resvg's
 * raw pixels in render.test.ts.
 */
import { inflateSync } from 'node:zlib';

/** Decoded image: RGBA, row-major, 4 bytes per pixel. */
export interface DecodedPng {
  width: number;
  height: number;
  rgba: Uint8Array;
}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Decodes a PNG file's bytes; throws on anything it does not support. */
export function decodePng(bytes: Uint8Array): DecodedPng {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  SIGNATURE.forEach((b, i) => {
    if (buf[i] !== b) throw new Error('not a PNG (bad signature)');
  });
  let pos = 8;
  let width = 0;
  let height = 0;
  let colorType = -1;
  const idat: Buffer[] = [];
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos);
    const type = buf.toString('latin1', pos + 4, pos + 8);
    const data = buf.subarray(pos + 8, pos + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const depth = data[8];
      colorType = data[9]!;
      if (depth !== 8) throw new Error(`unsupported bit depth ${depth}`);
      if (data[12] !== 0) throw new Error('interlaced PNG not supported');
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    pos += 12 + len;
  }
  const channels = ({ 0: 1, 2: 3, 4: 2, 6: 4 } as Record<number, number>)[colorType];
  if (channels === undefined) throw new Error(`unsupported colour type ${colorType}`);
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const out = new Uint8Array(width * height * channels);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const row = y * stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? out[row + x - channels]! : 0;
      const b = y > 0 ? out[row - stride + x]! : 0;
      const c = x >= channels && y > 0 ? out[row - stride + x - channels]! : 0;
      let pred = 0;
      if (filter === 1) pred = a;
      else if (filter === 2) pred = b;
      else if (filter === 3) pred = (a + b) >> 1;
      else if (filter === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      } else if (filter !== 0) throw new Error(`bad filter ${filter} on row ${y}`);
      out[row + x] = (src[x]! + pred) & 0xff;
    }
  }
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    const s = i * channels;
    const [r, g, b, al] =
      channels === 4
        ? [out[s]!, out[s + 1]!, out[s + 2]!, out[s + 3]!]
        : channels === 3
          ? [out[s]!, out[s + 1]!, out[s + 2]!, 255]
          : channels === 2
            ? [out[s]!, out[s]!, out[s]!, out[s + 1]!]
            : [out[s]!, out[s]!, out[s]!, 255];
    rgba.set([r, g, b, al], i * 4);
  }
  return { width, height, rgba };
}

/** Statistics of an RGBA image: share of pixels that are not (near) white, luminance variance. */
export function inkStats(rgba: Uint8Array): { inkFraction: number; lumaVariance: number } {
  const n = rgba.length / 4;
  let ink = 0;
  let sum = 0;
  let sum2 = 0;
  for (let i = 0; i < n; i++) {
    const a = rgba[i * 4 + 3]! / 255;
    // Composite on white, as a viewer shows it.
    const ch = (k: number) => rgba[i * 4 + k]! * a + 255 * (1 - a);
    const luma = 0.2126 * ch(0) + 0.7152 * ch(1) + 0.0722 * ch(2);
    if (luma < 250) ink++;
    sum += luma;
    sum2 += luma * luma;
  }
  const mean = sum / n;
  return { inkFraction: ink / n, lumaVariance: sum2 / n - mean * mean };
}

/** Number of pixels within `tol` (per channel) of the colour `#rrggbb`, alpha > 0. */
export function countColor(rgba: Uint8Array, hex: string, tol = 24): number {
  const r = parseInt(hex.slice(1, 3), 16);
  const g = parseInt(hex.slice(3, 5), 16);
  const b = parseInt(hex.slice(5, 7), 16);
  let count = 0;
  for (let i = 0; i < rgba.length; i += 4) {
    if (
      rgba[i + 3]! > 200 &&
      Math.abs(rgba[i]! - r) <= tol &&
      Math.abs(rgba[i + 1]! - g) <= tol &&
      Math.abs(rgba[i + 2]! - b) <= tol
    )
      count++;
  }
  return count;
}
