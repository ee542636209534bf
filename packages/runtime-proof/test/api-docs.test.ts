/**
 * The API reference: TypeDoc builds one site for every published package from the TSDoc (the root
 * `typedoc.json`, what `pnpm docs` runs) with warnings treated as errors, and headless Chromium, opening
 * it from a static server on 127.0.0.1, sees an index that renders and links each package to a page
 * that renders too. The site is built into a temporary folder here, so CI proves the build as well.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_PATH, type LaunchedChromium, launchChromium } from "./harness/runners.ts";
import { publishablePackages, ROOT } from "./harness/workspace.ts";

const CI = process.env["CI"] === "true";
const chromiumMissing = !existsSync(CHROMIUM_PATH);
if (chromiumMissing && !CI) {
  console.warn(
    `\n!!! runtime-proof: ${CHROMIUM_PATH} is missing: the API reference is built but NOT opened in a browser (apt-get install chromium; with CI=true it fails instead) !!!\n`,
  );
}

const TYPES: Record<string, string> = {
  ".html": "text/html",
  ".js": "text/javascript",
  ".css": "text/css",
  ".svg": "image/svg+xml",
  ".json": "application/json",
};
const packages = publishablePackages().map((p) => p.manifest.name);

let site: string;
let build: { code: number | null; output: string };

beforeAll(async () => {
  site = mkdtempSync(join(tmpdir(), "promo-review-api-docs-"));
  build = await runTypedoc(site);
  // TypeDoc converts ten packages; minutes on a busy two-core machine.
}, 900_000);

afterAll(() => {
  if (site) rmSync(site, { recursive: true, force: true });
});

/** `typedoc --out <dir>` from the repository root, without blocking this process. */
function runTypedoc(out: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolvePromise) => {
    const child = spawn(join(ROOT, "node_modules", ".bin", "typedoc"), ["--out", out], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.on("close", (code) => resolvePromise({ code, output }));
  });
}

/** Serves `root` read-only on 127.0.0.1; nothing outside it. */
async function serveStatic(root: string): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname));
    const file = join(root, path.endsWith("/") ? `${path}index.html` : path);
    if (!file.startsWith(root) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    res.end(readFileSync(file));
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe("pnpm docs: TypeDoc builds one site for every package", () => {
  it("with no warnings (treatWarningsAsErrors) and an index page", () => {
    expect(build.output).not.toMatch(/\[warning\]|\[error\]/);
    expect(build.code, build.output).toBe(0);
    expect(existsSync(join(site, "index.html"))).toBe(true);
  });

  it("is what the root package.json's docs script builds, into the ignored docs/api", () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(manifest.scripts["docs"]).toMatch(/\btypedoc\b/);
    const config = JSON.parse(readFileSync(join(ROOT, "typedoc.json"), "utf8")) as { out: string };
    expect(config.out).toBe("docs/api");
    expect(readFileSync(join(ROOT, ".gitignore"), "utf8").split("\n")).toContain("docs/api/");
  });
});

describe("each package's typedoc.json documents every entry point of its exports map", () => {
  it.each(publishablePackages().map((p) => [p.manifest.name, p] as const))("%s", (_name, pkg) => {
    const config = JSON.parse(readFileSync(join(pkg.path, "typedoc.json"), "utf8")) as {
      entryPoints: string[];
    };
    const sources = Object.entries(pkg.manifest.exports ?? {})
      .filter(([subpath]) => !subpath.endsWith(".json"))
      .map(([, target]) => {
        const conditions = target as { default?: string; import?: string };
        const dist = typeof target === "string" ? target : (conditions.default ?? conditions.import ?? "");
        return dist.replace(/^\.\/dist\//, "./src/").replace(/\.js$/, ".ts");
      });
    expect([...config.entryPoints].sort()).toEqual([...new Set(sources)].sort());
  });
});

describe.skipIf(chromiumMissing && !CI)("the site in headless Chromium, served from 127.0.0.1", () => {
  let browser: LaunchedChromium | undefined;
  let server: Server | undefined;
  let origin = "";
  const elsewhere: string[] = [];

  beforeAll(async () => {
    ({ server, origin } = await serveStatic(site));
    browser = await launchChromium();
    // The site is self-contained: any request to another origin is refused and recorded.
    await browser.context.route(
      (url) => url.origin !== origin,
      (route) => {
        elsewhere.push(route.request().url());
        return route.abort();
      },
    );
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((ok) => (server ? server.close(() => ok()) : ok()));
  });

  it("renders the index, which links each package to a page that renders, and asks nothing of other origins", async () => {
    const page = await browser!.context.newPage();
    const answer = await page.goto(`${origin}/index.html`);
    expect(answer?.status()).toBe(200);
    expect(await page.title()).toContain("Promotion Compliance Review SDK");
    for (const name of packages) {
      const link = page.locator(".col-content a", { hasText: name }).first();
      await expect(link.count(), `index links ${name}`).resolves.toBeGreaterThan(0);
      const href = await link.getAttribute("href");
      const target = new URL(href!, page.url());
      expect(target.origin).toBe(origin);
      const packagePage = await browser!.context.newPage();
      const opened = await packagePage.goto(target.href);
      expect(opened?.status(), target.href).toBe(200);
      await expect(packagePage.locator("h1").first().textContent()).resolves.toContain(name);
      await packagePage.close();
    }
    await page.close();
    expect(elsewhere).toEqual([]);
  });
});
