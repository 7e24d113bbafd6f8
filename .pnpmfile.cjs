// pnpm hooks for this workspace.
//
// better-sqlite3 (the broker's embedded store) is a native addon: it downloads a prebuilt binary,
// or, where that download is impossible (offline or locked-down machines), compiles with node-gyp,
// which then needs Node's C headers. pnpm passes only a short list of environment variables to
// build scripts, so point node-gyp at the headers installed beside the running Node, when there
// are any and the user has not chosen a directory already.
const { existsSync } = require("node:fs");
const path = require("node:path");

function nodeHeadersDir() {
  const prefix = path.resolve(path.dirname(process.execPath), "..");
  return existsSync(path.join(prefix, "include", "node", "node.h")) ? prefix : undefined;
}

module.exports = {
  hooks: {
    updateConfig(config) {
      if (process.env.npm_config_nodedir) return config;
      const nodedir = nodeHeadersDir();
      if (nodedir === undefined) return config;
      return { ...config, extraEnv: { ...config.extraEnv, npm_config_nodedir: nodedir } };
    },
  },
};
