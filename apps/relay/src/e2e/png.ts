import { inflateSync } from "node:zlib";

/** A decoded picture: its size and the RGB of a pixel. */
export interface Picture {
  readonly width: number;
  readonly height: number;
  rgb(x: number, y: number): readonly [number, number, number];
}

const SIGNATURE = "89504e470d0a1a0a";

/**
 * Decodes a PNG as a browser screenshot writes it: 8 bits per channel, RGB or RGBA, not
 * interlaced (anything else throws). Enough to read the pixels of a Chromium screenshot.
 */
export function decodePng(png: Buffer): Picture {
  if (png.subarray(0, 8).toString("hex") !== SIGNATURE) throw new Error("not a PNG");
  let width = 0;
  let height = 0;
  let channels = 0;
  const data: Buffer[] = [];
  for (let at = 8; at + 8 <= png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString("latin1", at + 4, at + 8);
    const body = png.subarray(at + 8, at + 8 + length);
    if (type === "IHDR") {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, colour, , , interlace] = [body[8], body[9], body[10], body[11], body[12]];
      channels = colour === 2 ? 3 : colour === 6 ? 4 : 0;
      if (depth !== 8 || channels === 0 || interlace !== 0) throw new Error(`unsupported PNG: depth ${String(depth)}, colour type ${String(colour)}, interlace ${String(interlace)}`);
    } else if (type === "IDAT") {
      data.push(body);
    }
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) unfilter(raw, y * (stride + 1), pixels, y * stride, stride, channels);
  return {
    width,
    height,
    rgb(x, y) {
      const i = y * stride + x * channels;
      return [pixels[i] ?? 0, pixels[i + 1] ?? 0, pixels[i + 2] ?? 0];
    },
  };
}

/** Reverses one scanline's filter (PNG §9) into `out`, reading the line above from `out` too. */
function unfilter(raw: Buffer, from: number, out: Buffer, to: number, stride: number, bpp: number): void {
  const filter = raw[from] ?? 0;
  for (let i = 0; i < stride; i++) {
    const x = raw[from + 1 + i] ?? 0;
    const a = i >= bpp ? (out[to + i - bpp] ?? 0) : 0;
    const b = to >= stride ? (out[to + i - stride] ?? 0) : 0;
    const c = i >= bpp && to >= stride ? (out[to + i - stride - bpp] ?? 0) : 0;
    out[to + i] = (x + predictor(filter, a, b, c)) & 0xff;
  }
}

function predictor(filter: number, a: number, b: number, c: number): number {
  switch (filter) {
    case 0:
      return 0;
    case 1:
      return a;
    case 2:
      return b;
    case 3:
      return (a + b) >> 1;
    case 4: {
      const p = a + b - c;
      const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
      return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
    }
    default:
      throw new Error(`unknown PNG filter ${String(filter)}`);
  }
}
