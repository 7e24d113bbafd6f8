import type { Options } from "tsup";

/** tsup options for an app whose entry point is `src/main.ts`: one ESM bundle, workspace packages bundled from source. */
export declare function appBuild(): Options;

/** tsup options for an app's bin/<command>.js, one per package.json `bin` name: app-kit's launcher bundled, so the published app needs no app-kit. */
export declare function binBuild(): Options;

/** tsup options for an app's published library entry `src/index.ts` (with declarations), app-kit bundled in. */
export declare function libraryBuild(): Options;
