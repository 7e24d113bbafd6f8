// Shared flat config: type-aware strict rules for protocol code, where a floating promise or an
// unchecked index is a real bug class, plus an import-cycle check across the whole workspace.
import js from "@eslint/js";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import { importX } from "eslint-plugin-import-x";
import { defineConfig } from "eslint/config";
import globals from "globals";
import tseslint from "typescript-eslint";
import { noCycle, typesAsValuesParser } from "./no-cycle.js";

// Private state is ECMAScript `#private` everywhere, not TypeScript's `private` (one convention;
// a private constructor stays allowed for classes built only by their static factory).
const privateFields = [
  { selector: "PropertyDefinition[accessibility='private']", message: "private state is a #field (not TypeScript's private)" },
  { selector: "MethodDefinition[accessibility='private'][kind!='constructor']", message: "private methods are #methods (not TypeScript's private)" },
];

/**
 * Builds the project's flat config.
 * @param {string} tsconfigRootDir directory holding the tsconfig.json that covers the linted files
 */
export function config(tsconfigRootDir) {
  return defineConfig(
    {
      ignores: ["**/dist/**", "apps/*/bin/**", "**/node_modules/**", "**/coverage/**", "**/*.bundled_*.mjs", "**/.turbo/**"],
    },
    js.configs.recommended,
    tseslint.configs.strictTypeChecked,
    tseslint.configs.stylisticTypeChecked,
    {
      languageOptions: {
        globals: { ...globals.node },
        parserOptions: { projectService: true, tsconfigRootDir },
      },
      plugins: { "import-x": importX, handoff: { rules: { "no-cycle": noCycle } } },
      settings: {
        // no-cycle parses each imported file itself; it needs to know which parser reads .ts (one
        // that reads type imports as imports, so that a cycle through types is found too).
        "import-x/extensions": [".ts", ".js"],
        "import-x/parsers": { [typesAsValuesParser]: [".ts"] },
        "import-x/resolver-next": [
          createTypeScriptImportResolver({
            alwaysTryTypes: true,
            conditionNames: ["@handoff/source", "types", "import", "node", "default"],
          }),
        ],
      },
      rules: {
        "@typescript-eslint/consistent-type-imports": "error",
        "@typescript-eslint/switch-exhaustiveness-check": [
          "error",
          { considerDefaultExhaustiveForUnions: false, requireDefaultForNonUnion: false },
        ],
        "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
        "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
        "handoff/no-cycle": "error",
        "import-x/no-self-import": "error",
        "@typescript-eslint/parameter-properties": ["error", { allow: ["readonly", "public", "public readonly", "protected", "protected readonly"] }],
        "no-restricted-syntax": ["error", ...privateFields],
        eqeqeq: ["error", "always"],
      },
    },
    {
      files: ["**/*.js", "**/*.mjs", "**/*.cjs"],
      extends: [tseslint.configs.disableTypeChecked],
    },
    {
      // The sans-I/O rule, enforced: the cores (packages/*/src, tests and test helpers aside) touch
      // no Node global, timer, clock or built-in module; time comes from an injected clock.
      files: ["packages/*/src/**/*.ts"],
      // app-kit is the apps' shared I/O (signals, the /health server, config files), not a core.
      ignores: ["**/*.test.ts", "**/*.test-helpers.ts", "**/testing/**", "packages/app-kit/**"],
      rules: {
        "no-restricted-globals": [
          "error",
          ...["Buffer", "process", "global", "__dirname", "__filename", "require"].map((name) => ({ name, message: "cores are sans-I/O: no Node globals (docs/ARCHITECTURE.md)" })),
          ...["setTimeout", "setInterval", "setImmediate", "clearTimeout", "clearInterval", "clearImmediate"].map((name) => ({
            name,
            message: "cores are sans-I/O: no timers; take deadlines and report them as effects (docs/ARCHITECTURE.md)",
          })),
        ],
        "no-restricted-imports": ["error", { patterns: [{ regex: "^node:", message: "cores are sans-I/O: no Node built-in modules (docs/ARCHITECTURE.md)" }] }],
        "no-restricted-syntax": [
          "error",
          ...privateFields,
          { selector: "MemberExpression[object.name='Date'][property.name='now']", message: "cores are sans-I/O: read time from the injected clock (docs/ARCHITECTURE.md)" },
          { selector: "MemberExpression[object.name='performance'][property.name='now']", message: "cores are sans-I/O: read time from the injected clock (docs/ARCHITECTURE.md)" },
          { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: "cores are sans-I/O: read time from the injected clock (docs/ARCHITECTURE.md)" },
        ],
      },
    },
    {
      // CommonJS is only used where a tool demands it (pnpm's .pnpmfile.cjs).
      files: ["**/*.cjs"],
      languageOptions: { sourceType: "commonjs" },
      rules: { "@typescript-eslint/no-require-imports": "off" },
    },
  );
}
