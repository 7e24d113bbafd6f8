/**
 * How the commit worker's thread starts, from the build and from the TypeScript sources.
 *
 * Built (dist/*.js), the thread's module is dist/commit-worker-thread.js, an entry of its own in
 * the broker's tsup configs, and the worker starts from that file.
 *
 * From the sources (vitest; tsx in `pnpm dev`, the benches and the e2e tests' child brokers) it is
 * commit-worker-thread.ts, which a worker on Node 20 cannot load: loader hooks such as tsx's
 * `--import` do not reach worker threads there. Loading it in each worker through tsx's require
 * hook works but starts an esbuild service per worker (a third of a second on a busy machine, and
 * the store tests open hundreds of stores). So the sources compile it once per process, with the
 * esbuild tsx runs on, into one CommonJS script that every worker evaluates.
 * @module
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { CommitWorkerData } from "./commit-worker-thread.js";

/** Starts a commit worker thread with `workerData` (see the module comment for where its code comes from). */
export function startCommitThread(workerData: CommitWorkerData): Worker {
  if (!import.meta.url.endsWith(".ts")) return new Worker(new URL("./commit-worker-thread.js", import.meta.url), { workerData });
  return new Worker(compiledFromSource(), { eval: true, workerData });
}

/** The part of esbuild's API used here (esbuild is tsx's dependency, not the broker's). */
interface Esbuild {
  buildSync(options: {
    readonly entryPoints: readonly string[];
    readonly bundle: true;
    readonly platform: "node";
    readonly format: "cjs";
    readonly target: string;
    readonly external: readonly string[];
    readonly sourcemap: "inline";
    readonly write: false;
    readonly logLevel: "silent";
  }): { readonly outputFiles: readonly { readonly text: string }[] };
}

let compiled: string | undefined;

function compiledFromSource(): string {
  if (compiled !== undefined) return compiled;
  const thread = fileURLToPath(new URL("./commit-worker-thread.ts", import.meta.url));
  let esbuild: Esbuild;
  try {
    esbuild = createRequire(createRequire(import.meta.url).resolve("tsx/cjs/api"))("esbuild") as Esbuild;
  } catch (cause) {
    throw new Error("the broker's TypeScript sources need tsx (a workspace dev dependency) to compile the commit worker", { cause });
  }
  const [output] = esbuild.buildSync({
    entryPoints: [thread],
    bundle: true,
    platform: "node",
    format: "cjs",
    target: `node${process.versions.node}`,
    external: ["better-sqlite3"], // native: loaded from the broker's node_modules
    sourcemap: "inline",
    write: false,
    logLevel: "silent",
  }).outputFiles;
  if (output === undefined) throw new Error(`esbuild produced nothing for ${thread}`);
  // A worker's eval script resolves require() from the working directory; the bundle's
  // require("better-sqlite3") has to start from the thread's own directory instead.
  compiled = `(function (require) {${output.text}\n})(require("node:module").createRequire(${JSON.stringify(thread)}));`;
  return compiled;
}
