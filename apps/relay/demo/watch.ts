// The watching half of the demo: @moq/watch's <moq-watch> element subscribes to the broadcast
// through the relay, decodes it with WebCodecs and paints it on its canvas.
import "@moq/watch/element";
import { PATTERN_HEIGHT, PATTERN_WIDTH } from "./palette.js";
import { demoTarget, runs, show } from "./target.js";

function startWatcher(root: HTMLElement): void {
  const target = demoTarget(location);
  const watcher = document.createElement("moq-watch");
  watcher.setAttribute("url", target.url);
  watcher.setAttribute("name", target.name);
  watcher.setAttribute("muted", "");
  // Download even when the tab is hidden (a headless or background tab is never "visible").
  watcher.setAttribute("visible", "always");
  const canvas = document.createElement("canvas");
  canvas.id = "watched";
  canvas.width = PATTERN_WIDTH;
  canvas.height = PATTERN_HEIGHT;
  watcher.append(canvas);
  root.append(watcher);
  show("watch-target", `${target.url} ${target.name}`);
  // How often the watcher (re)connected: a handover between relays behind this one leaves it at 1.
  let connects = 0;
  let last = "";
  setInterval(() => {
    const status = watcher.connection.status.peek();
    if (status === "connected" && last !== "connected") connects++;
    last = status;
    show("watch-status", `${status} ${watcher.broadcast.status.peek()}`);
    show("watch-connects", String(connects));
  }, 100);
}

const root = runs("watch", location);
if (root !== undefined) startWatcher(root);
