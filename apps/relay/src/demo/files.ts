import { readdirSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";

/** A file of the demo page, held in memory. */
export interface DemoFile {
  readonly contentType: string;
  readonly body: Buffer;
}

/** The built demo page: its files by name (`index.html`, `watch.js`, …). */
export type DemoPage = ReadonlyMap<string, DemoFile>;

/** Thrown when the demo page is asked for but has not been built. */
export class DemoNotBuiltError extends Error {
  override readonly name = "DemoNotBuiltError";
}

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
};

/**
 * Reads the built demo page (the relay build's `dist/demo/`) once, at start: only files of the
 * known types, so nothing else in the folder is ever served, and no request touches the disk.
 */
export function loadDemo(dir: string): DemoPage {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    throw new DemoNotBuiltError(`the demo page is not built (no ${dir}): run the relay's build (pnpm --filter @handoff/relay build)`);
  }
  const page = new Map<string, DemoFile>();
  for (const name of names) {
    const contentType = TYPES[extname(name)];
    if (contentType !== undefined) page.set(name, { contentType, body: readFileSync(join(dir, name)) });
  }
  if (!page.has("index.html")) throw new DemoNotBuiltError(`the demo page in ${dir} has no index.html: run the relay's build (pnpm --filter @handoff/relay build)`);
  return page;
}
