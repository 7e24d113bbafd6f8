// import-x/no-cycle, counting type-only imports. The plugin's rule skips `import type` at both
// ends (the linted file's own import and every edge of its walk) and has no option to do
// otherwise; but `a.ts -> b.ts -> a.ts` through types is still two modules that cannot be read,
// moved or split apart, so the house counts them. The rule below hands the plugin's rule each
// import as a value import, and the walk parses the files it visits with a parser that does the same.
import { createRequire } from "node:module";
import { importX } from "eslint-plugin-import-x";

const require = createRequire(import.meta.url);
/** The parser module no-cycle's walk must use (set it in the "import-x/parsers" setting). */
export const typesAsValuesParser = require.resolve("./types-as-values-parser.cjs");

const base = importX.rules["no-cycle"];

/** A copy of an import declaration that reads as a value import. */
function asValueImport(node) {
  if (node.type !== "ImportDeclaration" && node.type !== "TSImportEqualsDeclaration") return node;
  const copy = { ...node, importKind: "value" };
  if (node.type === "ImportDeclaration") copy.specifiers = node.specifiers.map((s) => ("importKind" in s ? { ...s, importKind: "value" } : s));
  return copy;
}

/** no-cycle with type-only imports counted as edges. */
export const noCycle = {
  meta: base.meta,
  create(context) {
    const visitors = base.create(context);
    return Object.fromEntries(Object.entries(visitors).map(([key, visit]) => [key, (node) => visit(asValueImport(node))]));
  },
};
