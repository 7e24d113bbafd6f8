// The publishing half of the demo: a canvas test pattern (no camera needed) captured as a video
// track and published with @moq/publish's <moq-publish> element, which encodes it with WebCodecs.
import type { Video } from "@moq/publish";
import "@moq/publish/element";
import { PATTERN_FPS, PATTERN_HEIGHT, PATTERN_WIDTH } from "./palette.js";
import { drawPattern } from "./pattern.js";
import { demoTarget, runs, show } from "./target.js";

function startPublisher(root: HTMLElement): void {
  const source = document.createElement("canvas");
  source.width = PATTERN_WIDTH;
  source.height = PATTERN_HEIGHT;
  const ctx = source.getContext("2d");
  if (ctx === null) throw new Error("no 2d canvas");
  let frame = 0;
  drawPattern(ctx, frame);
  setInterval(() => {
    frame++;
    drawPattern(ctx, frame);
    show("publish-frames", String(frame));
  }, 1000 / PATTERN_FPS);
  const [track] = source.captureStream(PATTERN_FPS).getVideoTracks();
  if (track === undefined) throw new Error("the canvas gave no video track");

  const target = demoTarget(location);
  const publisher = document.createElement("moq-publish");
  publisher.setAttribute("url", target.url);
  publisher.setAttribute("name", target.name);
  // No microphone: the pattern is video only.
  publisher.setAttribute("muted", "");
  root.append(source, publisher);
  // A canvas track is a video MediaStreamTrack like a camera's, which is what the encoder takes.
  publisher.broadcast.video.source.set(track as Video.Source);
  show("publish-target", `${target.url} ${target.name}`);
  setInterval(() => {
    show("publish-status", publisher.connection.status.peek());
  }, 250);
}

const root = runs("publish", location);
if (root !== undefined) startPublisher(root);
