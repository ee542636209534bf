/**
 * The Redis stores declare `ioredis` `^5.0.0 || ^6.0.0` as their peer range, so their suites run against
 * both majors: the package's usual run uses ioredis 5 (its `ioredis` devDependency), and a second run
 * (`vitest.ioredis6.config.ts`) aliases `ioredis` to the `ioredis6` devDependency (`npm:ioredis@^6`).
 * This file builds that second configuration and proves, before any test, that the alias took effect.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { ViteUserConfig } from "vitest/config";

/** The major version of the package installed as `alias` in `packageDir`. */
export function installedMajor(packageDir: string, alias: string): number {
  const require = createRequire(`${packageDir}/package.json`);
  const manifest = require.resolve(`${alias}/package.json`);
  const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version: string };
  return Number(version.split(".")[0]);
}

/**
 * `base` (a package's own configuration) narrowed to the files that talk to Redis through ioredis,
 * with `ioredis` resolved to the `ioredis6` alias and no coverage floor (the usual run measures it).
 */
export function withIoredis6(
  base: ViteUserConfig,
  options: { dir: string; files: string[] },
): ViteUserConfig {
  const major = installedMajor(options.dir, "ioredis6");
  if (major !== 6) throw new Error(`the ioredis6 devDependency is ioredis ${major}, not 6`);
  const aliases = Array.isArray(base.resolve?.alias) ? base.resolve.alias : [];
  return {
    ...base,
    resolve: { ...base.resolve, alias: [...aliases, { find: /^ioredis$/, replacement: "ioredis6" }] },
    test: {
      ...base.test,
      include: options.files,
      setupFiles: [
        ...((base.test?.setupFiles as string[] | undefined) ?? []),
        fileURLToPath(new URL("./ioredis6-setup.ts", import.meta.url)),
      ],
      coverage: { enabled: false },
      reporters: ["default"],
    },
  };
}
