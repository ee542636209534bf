/**
 * Tracing from the standard OTEL_* variables: the built command, spawned, with the real
 * `@opentelemetry/sdk-node` exporting OTLP/HTTP JSON to a receiver of the test's own; the variables'
 * verdict; and doctor's `tracing` check.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openTelemetry } from "@promo-review/opentelemetry";
import type { Simulator } from "@promo-review/simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordingTelemetry } from "../../../../testing/otel.ts";
import { buildBinInto, runBin } from "../../test/support/built-bin.js";
import { captureIo, simulatorEnv, testSimulator } from "../../test/support/io.js";
import { type OtlpReceiver, startOtlpReceiver } from "../../test/support/otlp-receiver.js";
import { run } from "../cli.js";
import type { Check } from "../doctor.js";
import { EXIT } from "../exit-codes.js";
import { commandOf, startTracing } from "./cli-tracing.js";
import { OTEL_SDK_FROM_VARIABLE } from "./find-sdk.js";
import { otelRequest } from "./otel-env.js";

const packageDir = join(import.meta.dirname, "../..");
let bin: string;
let sim: Simulator;
let work: string;

beforeAll(async () => {
  bin = buildBinInto(join(packageDir, ".test-dist-tracing"));
  sim = await testSimulator();
  work = mkdtempSync(join(tmpdir(), "promo-review-tracing-"));
}, 120_000);
afterAll(async () => {
  await sim?.close();
  rmSync(work, { recursive: true, force: true });
  rmSync(join(packageDir, ".test-dist-tracing"), { recursive: true, force: true });
});

/** The variables that send traces (only) as OTLP/HTTP JSON to `endpoint`. */
function otelEnv(endpoint: string): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_TRACES_EXPORTER: "otlp",
    OTEL_METRICS_EXPORTER: "none",
    OTEL_LOGS_EXPORTER: "none",
  };
}

/**
 * A project directory whose `node_modules` holds a stand-in `@opentelemetry/sdk-node` that says on
 * stderr that it was loaded, then fails to load (as a broken install would).
 */
function projectWithStandInSdk(name: string): string {
  const project = mkdtempSync(join(work, `${name}-`));
  const dir = join(project, "node_modules", "@opentelemetry", "sdk-node");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "@opentelemetry/sdk-node", version: "9.9.9", main: "index.js" }),
  );
  writeFileSync(
    join(dir, "index.js"),
    `process.stderr.write("stand-in sdk-node loaded\\n");\nthrow new Error("stand-in: broken install");\n`,
  );
  return project;
}

/** doctor --json in-process with `env`, from `cwd`: the `tracing` check. */
async function tracingCheckOf(env: Record<string, string>, cwd = packageDir): Promise<Check> {
  const captured = captureIo(env);
  await run(["doctor", "--json"], { ...captured.io, cwd });
  const { checks } = JSON.parse(captured.stdout()) as { checks: Check[] };
  return checks.find((check) => check.id === "tracing")!;
}

describe("OTEL_* set and the SDK installed: the command's spans reach the collector, with no secret", () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(() => receiver.close());

  it("exports the run's span, the operation and its CLIENT span under it before exiting, and no key or secret", async () => {
    const { PROMO_REVIEW_API_KEY: _key, ...settings } = simulatorEnv(sim);
    const finished = await runBin(
      bin,
      // The key on the command line: the process resource must not carry the command line.
      ["channels", "--json", "--api-key", sim.apiKey],
      {
        env: {
          ...settings,
          ...otelEnv(receiver.endpoint),
          OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer xyz-collector-token",
        },
        deadlineMs: 30_000,
      },
    );
    expect(finished.stderr).toBe("");
    expect(finished.code).toBe(EXIT.ok);
    expect(JSON.parse(finished.stdout).channels.length).toBeGreaterThan(0);

    const spans = receiver.spans();
    const root = spans.find((span) => span.scope === "@promo-review/cli");
    expect(root).toMatchObject({
      name: "promo-review channels",
      attributes: { "promo_review.cli.command": "channels", "promo_review.cli.exit_code": 0 },
    });
    expect(root!.parentSpanId ?? "").toBe("");
    // Under it, the operation (promotions-core) and under that the HTTP attempt (http's CLIENT span,
    // OTLP kind 3), all in the run's trace.
    const operation = spans.find((span) => span.name === "reference.channels");
    expect(operation).toMatchObject({ scope: "@promo-review/promotions-core", parentSpanId: root!.spanId });
    const attempt = spans.find((span) => span.name === "GET /v1/channels");
    expect(attempt).toMatchObject({
      scope: "@promo-review/http",
      kind: 3,
      parentSpanId: operation!.spanId,
      attributes: { "url.template": "/v1/channels", "http.response.status_code": 200 },
    });
    for (const span of spans.filter((s) => s.scope.startsWith("@promo-review/"))) {
      expect(span.traceId).toBe(root!.traceId);
    }
    expect(root!.resource["service.name"]).toBe("promo-review");
    expect(root!.resource).not.toHaveProperty("process.command_args");

    // The exporter sent the collector's header (read from OTEL_EXPORTER_OTLP_HEADERS by the SDK)...
    expect(receiver.received[0]!.headers["authorization"]).toBe("Bearer xyz-collector-token");
    // ...and no payload holds the key, the webhook secret or that header.
    const payload = receiver.received.map((r) => r.body).join("\n");
    for (const secret of [sim.apiKey, sim.webhookSecret, "xyz-collector-token"]) {
      expect(payload).not.toContain(secret);
    }
  });

  it("a failing run's span has status ERROR and the exit code", async () => {
    receiver.received.length = 0;
    const finished = await runBin(bin, ["get", "not-a-uuid", "--json"], {
      env: { ...simulatorEnv(sim), ...otelEnv(receiver.endpoint) },
    });
    expect(finished.code).toBe(EXIT.usage);
    expect(receiver.spans().find((span) => span.scope === "@promo-review/cli")).toMatchObject({
      name: "promo-review get",
      status: { code: 2 },
      attributes: { "promo_review.cli.exit_code": EXIT.usage },
    });
  });

  it("sends metrics too when OTEL_METRICS_EXPORTER asks: http.client.request.duration, flushed at exit", async () => {
    receiver.received.length = 0;
    const finished = await runBin(bin, ["channels", "--json"], {
      env: { ...simulatorEnv(sim), ...otelEnv(receiver.endpoint), OTEL_METRICS_EXPORTER: "otlp" },
      deadlineMs: 30_000,
    });
    expect(finished.code).toBe(EXIT.ok);
    const metrics = receiver.received.filter((r) => r.path === "/v1/metrics").map((r) => r.body);
    expect(metrics.join("\n")).toContain('"name":"http.client.request.duration"');
    expect(metrics.join("\n")).not.toContain(sim.apiKey);
  });

  it("a collector that never answers does not hold the command: it exits after the 3 s flush deadline", async () => {
    const hanging = await startOtlpReceiver({ hold: true });
    try {
      const finished = await runBin(bin, ["channels", "--json"], {
        // The exporter would wait 30 s for an answer: the command must not.
        env: { ...simulatorEnv(sim), ...otelEnv(hanging.endpoint), OTEL_EXPORTER_OTLP_TIMEOUT: "30000" },
        deadlineMs: 45_000,
      });
      expect(finished.code).toBe(EXIT.ok);
      expect(finished.stderr).toContain("did not finish sending within 3 s; exiting without it");
      expect(finished.tookMs).toBeLessThan(15_000);
      expect(hanging.received.length).toBeGreaterThan(0);
    } finally {
      await hanging.close();
    }
  });

  it("doctor says on, with the SDK's version, where traces go and the header's name only", async () => {
    const check = await tracingCheckOf({
      ...simulatorEnv(sim),
      ...otelEnv("http://127.0.0.1:4318"),
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer xyz",
    });
    expect(check.status).toBe("ok");
    expect(check.message).toMatch(/^on: @opentelemetry\/sdk-node \d+\.\d+\.\d+ \(from /);
    expect(check.message).toContain(
      "traces: otlp (http/json) to http://127.0.0.1:4318/v1/traces; metrics: off",
    );
    expect(check.message).toContain("OTLP headers: authorization (values not shown)");
    expect(JSON.stringify(check)).not.toContain("xyz");
  });

  it("doctor's human report never prints a header value or an endpoint's credentials either", async () => {
    const captured = captureIo({
      ...simulatorEnv(sim),
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://user:hunter2@collector.example/v1/traces?token=abc",
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer xyz,x-api-key=k123",
    });
    await run(["doctor"], { ...captured.io, cwd: packageDir });
    const line = captured
      .stdout()
      .split("\n")
      .find((l) => l.includes("tracing:"))!;
    expect(line).toContain("to https://collector.example/v1/traces (credentials and query not shown)");
    expect(line).toContain("OTLP headers: authorization, x-api-key (values not shown)");
    for (const secret of ["xyz", "k123", "hunter2", "token=abc"])
      expect(captured.stdout()).not.toContain(secret);
  });
});

describe("OTEL_* unset: nothing is imported, and doctor says tracing is off", () => {
  it("does not load the SDK (a stand-in that announces itself stays silent) and doctor says off", async () => {
    const project = projectWithStandInSdk("unset");
    const finished = await runBin(bin, ["channels", "--json"], {
      env: { ...simulatorEnv(sim), [OTEL_SDK_FROM_VARIABLE]: project },
      cwd: project,
    });
    expect(finished.code).toBe(EXIT.ok);
    expect(finished.stderr).toBe("");

    const check = await tracingCheckOf(simulatorEnv(sim));
    expect(check).toMatchObject({ id: "tracing", status: "skip" });
    expect(check.message).toMatch(/^off: no OTEL_\* variable asks for it/);
    expect(check.advice).toContain("install @opentelemetry/sdk-node");
  });

  it("the same stand-in, with OTEL_* set, is loaded from the working directory's project first, and its failure does not stop the command", async () => {
    const project = projectWithStandInSdk("cwd-first");
    const finished = await runBin(bin, ["channels", "--json"], {
      // No resolution root given: the working directory, then the CLI's own installation (which has
      // the real SDK): the working directory's must win.
      env: { ...simulatorEnv(sim), ...otelEnv("http://127.0.0.1:9") },
      cwd: project,
    });
    expect(finished.code).toBe(EXIT.ok);
    expect(finished.stderr).toContain("stand-in sdk-node loaded");
    expect(finished.stderr).toContain(
      "promo-review: tracing is off: @opentelemetry/sdk-node 9.9.9 could not be started (stand-in: broken install)",
    );
    expect(JSON.parse(finished.stdout).channels.length).toBeGreaterThan(0);
  });
});

describe("OTEL_* set but the SDK not installed: a one-line notice, and the command works", () => {
  it("prints one line naming the package to install, and exits 0 with its result", async () => {
    const empty = mkdtempSync(join(work, "no-sdk-"));
    const finished = await runBin(bin, ["channels", "--json"], {
      env: { ...simulatorEnv(sim), ...otelEnv("http://127.0.0.1:9"), [OTEL_SDK_FROM_VARIABLE]: empty },
      cwd: empty,
    });
    expect(finished.code).toBe(EXIT.ok);
    expect(JSON.parse(finished.stdout).channels.length).toBeGreaterThan(0);
    const lines = finished.stderr.split("\n").filter(Boolean);
    expect(lines).toEqual([
      "promo-review: tracing is off: OTEL_* variables ask for it, but @opentelemetry/sdk-node is not installed (run `npm install @opentelemetry/sdk-node` in this project, or install it globally beside promo-review)",
    ]);
  });

  it("doctor warns with the install command (and exits 0: the service is fine)", async () => {
    // Spawned: in this test process, pnpm's NODE_PATH would find the SDK from anywhere.
    const empty = mkdtempSync(join(work, "doctor-no-sdk-"));
    const finished = await runBin(bin, ["doctor", "--json"], {
      env: {
        ...simulatorEnv(sim),
        ...otelEnv("http://127.0.0.1:9"),
        [OTEL_SDK_FROM_VARIABLE]: empty,
        OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer xyz",
      },
      cwd: empty,
    });
    expect(finished.code).toBe(EXIT.ok);
    const { checks } = JSON.parse(finished.stdout) as { checks: Check[] };
    expect(checks.find((c) => c.id === "tracing")).toMatchObject({
      status: "warn",
      message: expect.stringMatching(/^asked for but off: @opentelemetry\/sdk-node is not installed/),
      advice:
        "run `npm install @opentelemetry/sdk-node` in this project, or install it globally beside promo-review",
    });
    expect(finished.stdout).not.toContain("xyz");
  });
});

describe("in-process, the io's observer goes to every client the command makes", () => {
  it("a subcommand, doctor and the demo report to them, with no secret in any span or metric", async () => {
    const recording = recordingTelemetry();
    const providers = {
      telemetry: openTelemetry({
        tracerProvider: recording.tracerProvider,
        meterProvider: recording.meterProvider,
      }),
    };
    try {
      const channels = captureIo(simulatorEnv(sim));
      expect(await run(["channels", "--json"], { ...channels.io, ...providers })).toBe(EXIT.ok);
      const [operation] = recording.spansNamed("reference.channels");
      expect(recording.childrenOf(operation!).map((span) => span.name)).toEqual(["GET /v1/channels"]);

      recording.reset();
      const doctor = captureIo(simulatorEnv(sim));
      expect(await run(["doctor", "--json"], { ...doctor.io, cwd: packageDir, ...providers })).toBe(EXIT.ok);
      expect(recording.spans().map((span) => span.name)).toEqual([
        "GET /v1/channels",
        "POST /v1/promotions",
        "GET /v1/uploads/{uploadId}",
      ]);

      recording.reset();
      const demo = captureIo({});
      expect(await run(["demo", "--json"], { ...demo.io, ...providers })).toBe(EXIT.ok);
      // The demo's clients (its own simulator's) are traced: operations with their attempts under them,
      // the webhook verified by the listener, the upload's chunk PUTs.
      const [create] = recording.spansNamed("promotions.create");
      expect(recording.childrenOf(create!).map((span) => span.name)).toEqual(["POST /v1/promotions"]);
      for (const name of ["links.capture", "promotions.submit", "evaluateAndWait", "webhooks.verify"]) {
        expect(recording.spansNamed(name).length, name).toBeGreaterThan(0);
      }
      expect(recording.spans().filter((span) => span.name.startsWith("PUT")).length).toBeGreaterThan(1);
      expect((await recording.metrics()).get("http.client.request.duration")?.length).toBeGreaterThan(0);
      const strings = (await recording.everyString()).join("\n");
      // The demo's own simulator makes keys of the same shape: none of them (pr_live_...) is in a span.
      for (const secret of [sim.apiKey, sim.webhookSecret]) expect(strings).not.toContain(secret);
      expect(strings).not.toMatch(/pr_(live|test)_|whsec_/);
    } finally {
      await recording.shutdown();
    }
  }, 60_000);
});

describe("which OTEL_* variables ask for telemetry (read as the SDK reads them)", () => {
  it("nothing set, only none, or OTEL_SDK_DISABLED=true: off", () => {
    expect(otelRequest({}).asked).toBe(false);
    expect(otelRequest({ OTEL_TRACES_EXPORTER: "none", OTEL_METRICS_EXPORTER: "none" }).asked).toBe(false);
    expect(otelRequest({ OTEL_METRICS_EXPORTER: "none" }).asked).toBe(false);
    expect(otelRequest({ OTEL_SDK_DISABLED: "TRUE", OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" })).toEqual({
      asked: false,
      reason: "OTEL_SDK_DISABLED=true",
    });
    expect(
      otelRequest({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
        OTEL_TRACES_EXPORTER: "none",
        OTEL_METRICS_EXPORTER: "none",
      }).asked,
    ).toBe(false);
  });

  it("an endpoint alone: traces and metrics by OTLP (http/protobuf) to its signal paths", () => {
    expect(otelRequest({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/" })).toEqual({
      asked: true,
      traces: { exporters: ["otlp"], protocol: "http/protobuf", endpoint: "http://c:4318/v1/traces" },
      metrics: { exporters: ["otlp"], protocol: "http/protobuf", endpoint: "http://c:4318/v1/metrics" },
      headerNames: [],
    });
  });

  it("an exporter named alone asks for it; gRPC and a signal's own endpoint are used as they are", () => {
    const console = otelRequest({ OTEL_TRACES_EXPORTER: "console", OTEL_METRICS_EXPORTER: "none" });
    expect(console).toMatchObject({
      asked: true,
      traces: { exporters: ["console"] },
      metrics: { exporters: [] },
    });
    const grpc = otelRequest({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4317",
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "http://m:4318/custom",
      OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: "http/json",
    });
    expect(grpc).toMatchObject({
      traces: { protocol: "grpc", endpoint: "http://c:4317/" },
      metrics: { protocol: "http/json", endpoint: "http://m:4318/custom" },
    });
  });

  it("keeps only header names, never values", () => {
    const request = otelRequest({
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318",
      OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Bearer%20xyz, x-tenant=acme",
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-extra=1",
    });
    expect(request).toMatchObject({ headerNames: ["authorization", "x-tenant", "x-extra"] });
    expect(JSON.stringify(request)).not.toMatch(/xyz|acme/);
  });
});

describe("the run's span is named for its command, never for an argument", () => {
  const commands = ["channels", "doctor", "webhooks"];
  it("skips global options and the values they take", () => {
    expect(commandOf(["--api-key", "doctor", "channels", "--json"], commands)).toBe("channels");
    expect(commandOf(["--json", "webhooks", "listen"], commands)).toBe("webhooks");
    expect(commandOf(["--api-key=doctor", "doctor"], commands)).toBe("doctor");
  });
  it("is undefined for help, --version or an unknown command", () => {
    expect(commandOf(["--help"], commands)).toBeUndefined();
    expect(commandOf(["nope"], commands)).toBeUndefined();
    expect(commandOf(["--", "channels"], commands)).toBeUndefined();
  });
});

describe("startTracing in this process, as the bin calls it", () => {
  // Last in the file: the SDK registers its providers and context manager globally in this process.
  it("starts the SDK from OTEL_* in process.env, runs the command inside its span, and flushes", async () => {
    const receiver = await startOtlpReceiver();
    const saved = { ...process.env };
    Object.assign(process.env, otelEnv(receiver.endpoint));
    try {
      let stderr = "";
      const argv = ["--json", "channels"];
      const tracing = await startTracing({
        env: process.env,
        cwd: packageDir,
        stderr: { write: (text: string) => (stderr += text) },
        argv,
        commands: ["channels"],
        version: "0.0.0-test",
      });
      expect(Object.keys(tracing.providers)).toEqual(["tracerProvider"]); // metrics: none
      const captured = captureIo(simulatorEnv(sim));
      expect(await tracing.around(() => run(argv, { ...captured.io, telemetry: tracing.telemetry }))).toBe(
        EXIT.ok,
      );
      expect(await tracing.shutdown()).toBe(true);
      const spans = receiver.spans();
      const root = spans.find((span) => span.name === "promo-review channels")!;
      expect(root).toMatchObject({
        scope: "@promo-review/cli",
        attributes: { "promo_review.cli.exit_code": 0 },
      });
      const operation = spans.find((span) => span.name === "reference.channels");
      expect(operation?.parentSpanId).toBe(root.spanId);
      expect(stderr).toBe("");
    } finally {
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
      await receiver.close();
    }
  });
});
