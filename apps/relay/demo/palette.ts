// The demo's test pattern, as numbers: the page draws it, the browser e2e test checks the watched
// picture against it. No DOM here, so Node code can import it too.

/** Size of the published picture (px). */
export const PATTERN_WIDTH = 320;
export const PATTERN_HEIGHT = 240;

/** Frames drawn per second. */
export const PATTERN_FPS = 30;

/** Background colours (RGB), in turn; each holds for {@link PATTERN_PHASE_FRAMES} frames. */
export const PATTERN_COLOURS: readonly (readonly [number, number, number])[] = [
  [220, 40, 40],
  [40, 190, 60],
  [40, 70, 220],
];

/** Frames per background colour: half a second at {@link PATTERN_FPS}. */
export const PATTERN_PHASE_FRAMES = 15;

/** The white block that crosses the picture: its side (px), and rows it spans (top, from 0). */
export const PATTERN_BLOCK = 48;
export const PATTERN_BLOCK_TOP = 96;

/** The background colour of frame `n`. */
export function patternColour(n: number): readonly [number, number, number] {
  const colour = PATTERN_COLOURS[Math.floor(n / PATTERN_PHASE_FRAMES) % PATTERN_COLOURS.length];
  if (colour === undefined) throw new RangeError(`no colour for frame ${String(n)}`);
  return colour;
}

/** The block's left edge in frame `n`: 4 px a frame, wrapping. */
export function patternBlockLeft(n: number): number {
  return (n * 4) % (PATTERN_WIDTH - PATTERN_BLOCK);
}
