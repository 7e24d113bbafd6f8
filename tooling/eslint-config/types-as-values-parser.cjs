// The TypeScript parser, with every import and re-export read as a value import. import-x/no-cycle
// parses the files it walks through with the parser named in "import-x/parsers" and skips an edge
// that only imports types; a cycle of type imports is still a cycle between modules, so the walk
// is handed this parser instead. Only the cycle check uses it: linting itself keeps the real one.
"use strict";
const { parser } = require("typescript-eslint");

/** Marks every import and re-export of `ast` as a value import, in place. */
function typesAsValues(ast) {
  for (const node of ast.body) {
    if (node.type === "ImportDeclaration") {
      node.importKind = "value";
      for (const specifier of node.specifiers) if ("importKind" in specifier) specifier.importKind = "value";
    } else if ((node.type === "ExportNamedDeclaration" || node.type === "ExportAllDeclaration") && node.source) {
      node.exportKind = "value";
      for (const specifier of node.specifiers ?? []) specifier.exportKind = "value";
    }
  }
  return ast;
}

module.exports = {
  meta: { name: "types-as-values" },
  parseForESLint(code, options) {
    const result = parser.parseForESLint(code, options);
    typesAsValues(result.ast);
    return result;
  },
};
