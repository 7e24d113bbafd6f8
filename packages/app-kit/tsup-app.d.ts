import type { Options } from "tsup";

/** tsup options for an app whose entry point is `src/main.ts`: one ESM bundle, workspace packages bundled from source. */
export declare function appBuild(): Options;
