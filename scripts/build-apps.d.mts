/** The apps, by folder under apps/. */
export declare const apps: readonly ["broker", "relay"];
/** Builds both apps in parallel; resolves to true when both builds succeeded. */
export declare function buildApps(): Promise<boolean>;
