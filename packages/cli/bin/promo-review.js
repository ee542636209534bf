#!/usr/bin/env node
// The `promo-review` command. This file is committed outside dist/ so that installing a fresh clone (before
// any build) links the bin without a warning; the command itself is the built dist/bin.js.
import("../dist/bin.js").catch((error) => {
  if (error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes("dist/bin.js")) {
    process.stderr.write("promo-review is not built yet: run `pnpm build` in the repository first\n");
    process.exitCode = 1;
    return;
  }
  throw error;
});
