/**
 * The consumer installs of published.test.ts and types-consumers.test.ts reach the registry through a
 * nested npm. They keep the registry settings CI gives through the environment, and they end within a
 * bound with a failure that names its cause, proven here without the network: the registry is a closed
 * port, or a server that never answers, on 127.0.0.1.
 */
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { npmInstall, plainNpmEnv } from "./harness/npm-install.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A consumer project that needs one package no cache holds (its npm cache is new and empty). */
function consumer(): { cwd: string; cache: string } {
  const root = mkdtempSync(join(tmpdir(), "proof-npm-install-"));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const cwd = join(root, "project");
  mkdirSync(cwd);
  writeFileSync(
    join(cwd, "package.json"),
    JSON.stringify({ name: "consumer", private: true, dependencies: { "left-pad": "1.3.0" } }),
  );
  return { cwd, cache: join(root, "cache") };
}

/** A port on 127.0.0.1 that was free a moment ago and is closed now. */
async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A registry on 127.0.0.1 that accepts connections and never answers; closed after the test. */
async function silentRegistry(): Promise<string> {
  const sockets = new Set<import("node:net").Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
}

describe("a nested npm keeps the registry, certificate and proxy settings given through the environment", () => {
  it("keeps npm_config_registry, scoped registries, cafile, strict-ssl, proxies; drops pnpm's other npm_* settings", () => {
    const kept = {
      PATH: "/usr/bin",
      NODE_EXTRA_CA_CERTS: "/etc/ci/ca.pem",
      HTTPS_PROXY: "http://127.0.0.1:3128",
      npm_config_registry: "http://127.0.0.1:4873/",
      "npm_config_@promo:registry": "http://127.0.0.1:4874/",
      npm_config_cafile: "/etc/ci/ca.pem",
      npm_config_strict_ssl: "true",
      "npm_config_https-proxy": "http://127.0.0.1:3128",
      NPM_CONFIG_REGISTRY: "http://127.0.0.1:4875/",
    };
    const dropped = {
      npm_config_user_agent: "pnpm/10.34.9",
      npm_config_node_linker: "isolated",
      npm_lifecycle_event: "test",
      npm_package_name: "@promo-review/runtime-proof",
      pnpm_config_verify_deps_before_run: "false",
      npm_config_cache: "/home/ci/.npm",
    };
    expect(plainNpmEnv("/tmp/cache", { ...kept, ...dropped })).toEqual({
      ...kept,
      npm_config_cache: "/tmp/cache",
    });
  });
});

describe("an install that cannot reach its registry fails within its bound, naming the cause", () => {
  it("a registry on a closed port: npm's failure, with its last log lines naming the registry", async () => {
    const { cwd, cache } = consumer();
    const registry = `http://127.0.0.1:${await closedPort()}/`;
    const env = { ...plainNpmEnv(cache), npm_config_registry: registry };
    const started = Date.now();
    const install = npmInstall({
      cwd,
      what: "the test consumer",
      env,
      deadlineMs: 90_000,
      fetchTimeoutMs: 5_000,
      fetchRetries: 1,
    });
    const error = await install.then(
      () => undefined,
      (failure: unknown) => failure as Error,
    );
    expect(error?.message).toMatch(
      /^npm install of the test consumer failed \(exit \d+\); last lines of npm's log:\n/,
    );
    expect(error?.message).toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    // Generous for a loaded two-core machine; unbounded retries took over 20 minutes.
    expect(Date.now() - started).toBeLessThan(90_000);
  }, 120_000);

  it("a registry that never answers: killed at the deadline, and the message says so", async () => {
    const { cwd, cache } = consumer();
    const env = { ...plainNpmEnv(cache), npm_config_registry: await silentRegistry() };
    const started = Date.now();
    const error = await npmInstall({
      cwd,
      what: "the test consumer",
      env,
      deadlineMs: 5_000,
      fetchTimeoutMs: 600_000,
      fetchRetries: 0,
    }).then(
      () => undefined,
      (failure: unknown) => failure as Error,
    );
    expect(error?.message).toMatch(
      /^npm install of the test consumer did not finish in 5 s \(killed\); last lines of npm's log:\n/,
    );
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 120_000);
});
