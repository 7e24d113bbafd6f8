import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";

/** The page's script entry points, in the demo's source folder. */
const ENTRIES = ["publish.ts", "watch.ts"];

/** What is copied as it is: the pages and their style. */
const STATIC = /\.(?:html|css)$/;

/**
 * Bundles the demo page (`apps/relay/demo/`) into `outDir`: one minified ESM script per page half
 * (@moq/publish, @moq/watch and what they share in a common chunk) next to the HTML and CSS, so the
 * relay serves plain files and needs no network at run time. Run by the relay's build (tsup).
 */
export async function buildDemo(sourceDir: string, outDir: string): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: ENTRIES.map((entry) => join(sourceDir, entry)),
    outdir: outDir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    chunkNames: "chunk-[hash]",
    logLevel: "warning",
  });
  for (const name of readdirSync(sourceDir)) {
    if (STATIC.test(name)) copyFileSync(join(sourceDir, name), join(outDir, name));
  }
}
