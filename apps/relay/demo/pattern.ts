import { PATTERN_BLOCK, PATTERN_BLOCK_TOP, PATTERN_HEIGHT, PATTERN_WIDTH, patternBlockLeft, patternColour } from "./palette.js";

/** Draws frame `n` of the test pattern: the background colour, the moving block, the frame number. */
export function drawPattern(ctx: CanvasRenderingContext2D, n: number): void {
  const [r, g, b] = patternColour(n);
  ctx.fillStyle = `rgb(${String(r)} ${String(g)} ${String(b)})`;
  ctx.fillRect(0, 0, PATTERN_WIDTH, PATTERN_HEIGHT);
  ctx.fillStyle = "#fff";
  ctx.fillRect(patternBlockLeft(n), PATTERN_BLOCK_TOP, PATTERN_BLOCK, PATTERN_BLOCK);
  ctx.font = "bold 20px monospace";
  ctx.fillText(`frame ${String(n)}`, 10, 28);
}
