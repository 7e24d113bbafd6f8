/** The apps, by folder under apps/. */
export declare const apps: readonly ["broker", "relay"];
/** The published packages, by folder under packages/, dependencies first. */
export declare const packages: readonly ["seqlog", "mqtt-router", "qmux", "moq-resume", "moq-relay"];
/** Builds both apps in parallel; resolves to true when both builds succeeded. */
export declare function buildApps(): Promise<boolean>;
/** Builds every published package (ESM + .d.ts); resolves to true when all succeeded. */
export declare function buildPackages(): Promise<boolean>;
/** Builds the apps as @handoff/broker and @handoff/relay publish them (app, then library with declarations). */
export declare function buildAppPackages(): Promise<boolean>;
/** True when the app's dist/main.js is missing or older than anything its build reads. */
export declare function appIsStale(app: (typeof apps)[number]): boolean;
