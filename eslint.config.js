import { config } from "@handoff/eslint-config";

export default config(import.meta.dirname);
