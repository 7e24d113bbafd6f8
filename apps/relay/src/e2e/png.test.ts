import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { decodePng } from "./png.js";

/** A PNG of `rows` (each: its filter byte, then the filtered bytes), 8-bit, colour type `colour`. */
function png(width: number, colour: 2 | 6, rows: number[][]): Buffer {
  const chunk = (type: string, body: Buffer): Buffer => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(body.length, 0);
    head.write(type, 4, "latin1");
    return Buffer.concat([head, body, Buffer.alloc(4)]); // the decoder does not check CRCs
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(rows.length, 4);
  ihdr[8] = 8;
  ihdr[9] = colour;
  return Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), chunk("IHDR", ihdr), chunk("IDAT", deflateSync(Buffer.from(rows.flat()))), chunk("IEND", Buffer.alloc(0))]);
}

describe("decodePng", () => {
  it("reverses each scanline filter (none, sub, up, average, Paeth) of an RGB picture", () => {
    // Two pixels a row; every row decodes to (10,20,30) (40,50,60) after the first, which is plain.
    const picture = decodePng(
      png(2, 2, [
        [0, 10, 20, 30, 40, 50, 60],
        [1, 10, 20, 30, 30, 30, 30], // sub: left neighbour added
        [2, 0, 0, 0, 0, 0, 0], // up: the row above
        [3, 5, 10, 15, 20, 25, 30], // average of left and up: 5+floor(10/2)=10, then 20+floor((10+40)/2)=45...
        [4, 0, 0, 0, 0, 0, 0], // Paeth: picks up (the row above is identical)
      ]),
    );
    const row = (y: number): number[] => [...picture.rgb(0, y), ...picture.rgb(1, y)];
    expect([picture.width, picture.height]).toEqual([2, 5]);
    expect([row(0), row(1), row(2), row(4)]).toEqual([
      [10, 20, 30, 40, 50, 60],
      [10, 20, 30, 40, 50, 60],
      [10, 20, 30, 40, 50, 60],
      row(3),
    ]);
    expect(row(3)).toEqual([10, 20, 30, 20 + Math.floor((10 + 40) / 2), 25 + Math.floor((20 + 50) / 2), 30 + Math.floor((30 + 60) / 2)]);
  });

  it("skips the alpha of RGBA and refuses what a screenshot never is", () => {
    expect(decodePng(png(1, 6, [[0, 1, 2, 3, 255]])).rgb(0, 0)).toEqual([1, 2, 3]);
    expect(() => decodePng(Buffer.from("not a png"))).toThrow(/not a PNG/);
  });
});
