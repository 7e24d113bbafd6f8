// The demo page (/demo) in a real headless Chromium (Debian's, driven with playwright-core): the
// publish page encodes a canvas test pattern with @moq/publish (WebCodecs), the watch page decodes
// it with @moq/watch through the relay, and screenshots of the watched canvas must show the
// pattern's colours and its moving block; then the same across a GOAWAY handover between two
// relays upstream of the watcher's. Bounded, on port 0; the page is built into a temporary folder.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { WAIT_LIMIT_MS } from "@handoff/test-kit";
import { LITE_02, LITE_06 } from "@handoff/moq-resume/lite";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PATTERN_BLOCK, PATTERN_BLOCK_TOP, PATTERN_COLOURS, PATTERN_HEIGHT, PATTERN_WIDTH } from "../../demo/palette.js";
import { buildDemo } from "../demo/build.js";
import { loadDemo, type DemoPage } from "../demo/index.js";
import type { Relay } from "../server/relay.js";
import type { RelayOptions } from "../server/relay-options.js";
import { findChromium, launchChromium } from "./chromium.js";
import { clusterRelay, tcpUrl } from "./cluster-harness.test-helpers.js";
import { e2eSetup, testRelay, until } from "./harness.test-helpers.js";
import { decodePng } from "./png.js";

const executablePath = findChromium();
if (executablePath === undefined) {
  console.warn("relay demo e2e skipped: no chromium found (install Debian's chromium, or set HANDOFF_CHROMIUM)");
}

const cleanup = e2eSetup();
let demo: DemoPage | undefined;
let built: string | undefined;
let browser: Browser | undefined;
beforeAll(async () => {
  if (executablePath === undefined) return;
  built = mkdtempSync(join(tmpdir(), "handoff-relay-demo-"));
  await buildDemo(fileURLToPath(new URL("../../demo/", import.meta.url)), built);
  demo = loadDemo(built);
  browser = await launchChromium(executablePath);
});
afterAll(async () => {
  await browser?.close();
  if (built !== undefined) rmSync(built, { recursive: true, force: true });
});

/** A relay on port 0 serving the demo page built for this file. */
function demoRelay(extra: Partial<RelayOptions> = {}): Promise<Relay> {
  if (demo === undefined) throw new Error("the demo page was not built");
  return testRelay(cleanup, undefined, { ...extra, demo });
}

/** One look at the watched canvas: which pattern colour its background is, and where the block is. */
interface Look {
  /** Index in PATTERN_COLOURS, or -1 when the background is none of them (nothing painted yet). */
  readonly colour: number;
  /** Left edge of the white block on its middle row, or -1 when there is none. */
  readonly block: number;
}

/** The nearest pattern colour to `rgb` within a lossy codec's tolerance, or -1. */
function patternColourOf(rgb: readonly [number, number, number]): number {
  const distance = (c: readonly number[]): number => c.reduce((sum, v, i) => sum + Math.abs(v - (rgb[i] ?? 0)), 0);
  const best = PATTERN_COLOURS.reduce((bestIndex, c, i) => (distance(c) < distance(PATTERN_COLOURS[bestIndex] ?? c) ? i : bestIndex), 0);
  return distance(PATTERN_COLOURS[best] ?? [0, 0, 0]) <= 90 ? best : -1;
}

/** Screenshots the watched canvas and reads the background (below the block's rows) and the block. */
async function look(page: Page): Promise<Look> {
  const picture = decodePng(await page.locator("#watched").screenshot({ timeout: WAIT_LIMIT_MS }));
  // The element's box may sit at a fractional offset: a pixel more, never a different scale.
  expect([Math.abs(picture.width - PATTERN_WIDTH) <= 1, Math.abs(picture.height - PATTERN_HEIGHT) <= 1]).toEqual([true, true]);
  const colour = patternColourOf(picture.rgb(PATTERN_WIDTH / 2, PATTERN_HEIGHT - 20));
  const row = PATTERN_BLOCK_TOP + PATTERN_BLOCK / 2;
  let block = -1;
  for (let x = 0; x < PATTERN_WIDTH && block < 0; x++) {
    if (picture.rgb(x, row).every((v) => v > 200)) block = x;
  }
  return { colour, block };
}

/**
 * Looks at the watched canvas every 250 ms until it has shown the pattern moving (two background
 * colours and three block positions), up to test-kit's safety net (a bound, not a speed test).
 * Every look must be a pattern frame: a picture that is gone, or frozen, fails.
 */
async function expectMoving(page: Page): Promise<void> {
  const looks: Look[] = [];
  const moving = (): boolean => new Set(looks.map((l) => l.colour)).size >= 2 && new Set(looks.map((l) => l.block)).size >= 3;
  for (const end = Date.now() + WAIT_LIMIT_MS; !moving() && Date.now() < end; ) {
    looks.push(await look(page));
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  expect(looks.filter((l) => l.colour < 0 || l.block < 0)).toEqual([]);
  expect(moving(), `the watched picture moved (looks: ${JSON.stringify(looks)})`).toBe(true);
}

/** Opens one half of the demo page of `relay`, recording page errors and CSP refusals. */
async function open(relay: Relay, half: "publish" | "watch", problems: string[]): Promise<Page> {
  if (browser === undefined) throw new Error("no browser");
  const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
  cleanup.push(() => page.close());
  page.setDefaultTimeout(WAIT_LIMIT_MS);
  page.on("pageerror", (err) => problems.push(`${half}: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.text().includes("Content Security Policy")) problems.push(`${half}: ${msg.text()}`);
  });
  await page.goto(`http://127.0.0.1:${String(relay.ports.http)}/demo/?only=${half}`);
  // The other half is taken off the page: this tab runs one side only.
  expect(await page.locator(half === "publish" ? "#watch" : "#publish").count()).toBe(0);
  return page;
}

/** Waits until the watched canvas shows a pattern frame (the first decoded picture). */
async function firstPicture(page: Page): Promise<void> {
  const deadline = Date.now() + WAIT_LIMIT_MS;
  for (;;) {
    const seen = await look(page);
    if (seen.colour >= 0 && seen.block >= 0) return;
    if (Date.now() > deadline) throw new Error(`no pattern on the watched canvas within ${String(WAIT_LIMIT_MS)} ms (status ${await page.locator("#watch-status").innerText()})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe.skipIf(executablePath === undefined)("the demo page in headless Chromium", () => {
  it("publishes the canvas pattern and watches it back through the relay: the screenshots show its colours and its block moving", async () => {
    const relay = await demoRelay();
    const problems: string[] = [];
    const publisher = await open(relay, "publish", problems);
    await publisher.locator('#publish-status[data-state="connected"]').waitFor();
    const watcher = await open(relay, "watch", problems);
    await watcher.locator('#watch-status[data-state="connected live"]').waitFor();
    // @moq/net 0.1.9 (under both packages) offers bare qmux over WebSocket and agrees lite-02 in-band.
    expect([...relay.sessions].map((s) => [s.qmuxVersion, s.version])).toEqual([
      ["qmux-01", LITE_02],
      ["qmux-01", LITE_02],
    ]);
    await firstPicture(watcher);
    await expectMoving(watcher);
    expect(problems).toEqual([]);
  });

  it("keeps the picture going while the relay the watcher's relay reads from hands over with GOAWAY", async () => {
    // The publisher on the origin; the watcher on an edge whose upstream A drains to its sibling B.
    const origin = await demoRelay();
    const a = await clusterRelay(cleanup, [tcpUrl(origin)]);
    const b = await clusterRelay(cleanup, [tcpUrl(origin)]);
    const edge = await demoRelay({ cluster: { peers: [tcpUrl(a)], timing: { minBackoffMs: 50, maxBackoffMs: 500 } } });
    const problems: string[] = [];
    const publisher = await open(origin, "publish", problems);
    await publisher.locator('#publish-status[data-state="connected"]').waitFor();
    for (const r of [a, b, edge]) await until(() => r.origin.routes("demo/pattern.hang").length > 0, 10_000, "the pattern routable");
    const watcher = await open(edge, "watch", problems);
    await firstPicture(watcher);
    await expectMoving(watcher);

    const before = edge.cluster.peers[0]?.session;
    const drained = a.drain({ uri: tcpUrl(b), timeoutMs: WAIT_LIMIT_MS, stopAccepting: false });
    await until(() => {
      const now = edge.cluster.peers[0]?.session;
      return now !== undefined && now !== before && edge.origin.fedBy(now) > 0;
    }, 10_000, "the edge reads the pattern through B");
    expect(await drained).toEqual({ told: 1, left: 1, forced: 0 });
    expect(edge.cluster.peers[0]?.session?.version).toBe(LITE_06);
    // A is gone from the path: the picture still moves, and the watcher never reconnected.
    await a.close();
    await expectMoving(watcher);
    expect(await watcher.locator("#watch-connects").innerText()).toBe("1");
    expect(problems).toEqual([]);
  });
});
