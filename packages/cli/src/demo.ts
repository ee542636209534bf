/**
 * `promo-review demo`: the whole workflow, step by step, against the embedded simulator (the default)
 * or a real deployment (when `PROMO_REVIEW_*` settings or their flags are given).
 */
import { createClient, type EvaluationOutcome, type PromoReviewClient } from "@promo-review/sdk";
import { type Simulator, startSimulator } from "@promo-review/simulator";
import { colorsFor } from "./colors.js";
import type { CliIo } from "./io.js";
import type { Output } from "./output.js";
import { formatBytes, uploadProgressBar } from "./progress.js";
import { countingFetch, type RequestCounts } from "./request-counter.js";
import { samplePdf } from "./sample-pdf.js";
import { clientFrom, type GlobalOptions, hasSetting, requireSettings } from "./settings.js";
import { UsageError } from "./usage-error.js";
import { startWebhookListener, type WebhookListener } from "./webhook-listener.js";

/** How the demo runs. */
export interface DemoOptions {
  /** Connection settings by flag; with none here or in the environment, the simulator is embedded. */
  globals: GlobalOptions;
  /** Port of the webhook listener (default: a free one with the embedded simulator, none otherwise). */
  webhookPort?: number;
  /** Address the listener binds (default 127.0.0.1; a real deployment may need `0.0.0.0`). */
  webhookHost?: string;
  /** The link to capture. */
  link?: string;
  /** Longest wait for the evaluation's result. Default 120 s. */
  timeoutMs?: number;
  /** The settings' environment (the process's over the settings file's). Default: the io's. */
  env?: Record<string, string | undefined>;
  /** Bytes of the sample PDF. Default 320 KiB. */
  pdfBytes?: number;
  /** Variant profile seed of the embedded simulator (default 0, its own reading of every open point). */
  profile?: number;
}

/** One step the demo ran, and what it produced. */
export interface DemoStep {
  step: string;
  ok: boolean;
  detail: string;
}

/** What the demo did, printed at the end (and the whole `--json` output). */
export interface DemoSummary {
  /** `embedded` (the simulator in this process) or `service` (a deployment from the settings). */
  mode: "embedded" | "service";
  baseUrl: string;
  steps: DemoStep[];
  upload: { uploadId: string; fileName: string; fileSize: number; chunks: number; progressReports: number };
  capture: { url: string; uploadId: string; fileFormat: string };
  promotion: { promotionId: string; publicId?: string; tags: string[]; metadata: Record<string, string> };
  versions: { first: string; fromLink: string; fromWebApp?: string };
  latest: { versionId: string; version: number; versionCount: number; status: string };
  submitted: { versionId: string; status: string };
  decision: { versionId: string; decision: string; decidedByUserId?: string; rationale?: string };
  evaluation: {
    evaluationId: string;
    status: string;
    via: EvaluationOutcome["via"];
    /** Deliveries whose signature the listener verified. */
    verifiedWebhooks: number;
    issues: { severity?: string | undefined; category?: string | undefined; message?: string | undefined }[];
  };
  /** Requests this run made; `main` is what it spent of the key's main-API budget. */
  requests: RequestCounts & { budgetPerMinute: number; simulatorLog?: { main: number; files: number } };
}

const DEFAULT_LINK = "https://example.com/offers/spring-savings";

/** The main-API budget per key and minute, from the service's interface. */
const BUDGET_PER_MINUTE = 60;

/** Runs the demo; each step is reported as it ends. Everything started is stopped before returning. */
export async function runDemo(options: DemoOptions, io: CliIo, out: Output): Promise<DemoSummary> {
  const env = options.env ?? io.env ?? process.env;
  const signal = io.signal;
  // A deployment is chosen by its URL: a key alone points nowhere (a stray PROMO_REVIEW_API_KEY in a
  // shell is common), so without a base URL the demo runs its own simulator and says why.
  const embedded = !hasSetting("baseUrl", options.globals, env);
  const strayKey = embedded && hasSetting("apiKey", options.globals, env);
  const steps: DemoStep[] = [];
  // Under --json stderr is read by programs too: plain notes.
  const colors = colorsFor(io.stderr, out.json ? { NO_COLOR: "1" } : (io.env ?? process.env));
  const step = async <T>(name: string, work: () => Promise<T>, detail: (value: T) => string): Promise<T> => {
    try {
      const value = await work();
      steps.push({ step: name, ok: true, detail: detail(value) });
      out.note(`  ${colors.green("ok")}  ${name}: ${detail(value)}`);
      return value;
    } catch (error) {
      steps.push({ step: name, ok: false, detail: error instanceof Error ? error.message : String(error) });
      out.note(`  ${colors.red("!!")}  ${name}: failed`);
      throw error;
    }
  };
  const cleanup: (() => Promise<void> | void)[] = [];
  try {
    out.note(
      embedded
        ? "promo-review demo: the whole workflow against the simulator, started in this process"
        : "promo-review demo: the whole workflow against the service in your PROMO_REVIEW_* settings",
    );
    if (strayKey) {
      out.note(
        "  (an API key is set but no base URL: the demo ignores the key and uses its own simulator; set --base-url or PROMO_REVIEW_BASE_URL to run it against a deployment)",
      );
    }
    let sim: Simulator | undefined;
    let client: PromoReviewClient;
    let counter: ReturnType<typeof countingFetch>;
    if (embedded) {
      sim = await step(
        "start the simulator",
        // Small chunks, so the sample PDF goes in several and the progress bar has something to show.
        () =>
          startSimulator({
            maxChunkSize: 64 * 1024,
            ...(options.profile ? { profile: options.profile } : {}),
          }),
        (s) =>
          `main API ${s.baseUrl}, file service ${s.filesUrl}${s.profile.seed ? `, variant profile ${s.profile.seed}` : ""}`,
      );
      const started = sim;
      cleanup.push(() => started.close());
      counter = countingFetch(started);
      client = createClient({
        apiKey: started.apiKey,
        externalUserId: started.externalUserId,
        baseUrl: started.baseUrl,
        filesUrl: started.filesUrl,
        webhookSecret: started.webhookSecret,
        // The simulator is the whole configuration: nothing from this shell's PROMO_REVIEW_* leaks in.
        env: {},
        fetch: counter.fetch,
      });
    } else {
      counter = countingFetch(
        requireSettings(
          options.globals,
          env,
          "the demo runs against the deployment at the base URL given; without --base-url and PROMO_REVIEW_BASE_URL it starts its own simulator",
        ),
      );
      client = clientFrom(options.globals, env, { fetch: counter.fetch });
    }

    const verified: string[] = [];
    let listener: WebhookListener | undefined;
    const wantsListener = embedded || options.webhookPort !== undefined;
    if (wantsListener) {
      if (!embedded && !hasSetting("webhookSecret", options.globals, env)) {
        throw new UsageError("Webhooks cannot be verified without the endpoint's secret", [
          {
            field: "--webhook-secret",
            message: "is required with --webhook-port: pass it or set PROMO_REVIEW_WEBHOOK_SECRET",
          },
        ]);
      }
      listener = await step(
        "listen for webhooks",
        async () => {
          const started = await startWebhookListener(
            client.webhooks.nodeHandler((_event, delivery) => {
              verified.push(delivery.id);
            }),
            {
              ...(options.webhookHost ? { host: options.webhookHost } : {}),
              ...(options.webhookPort !== undefined ? { port: options.webhookPort } : {}),
            },
          );
          cleanup.push(() => started.close());
          sim?.control.addWebhookEndpoint(started.url);
          return started;
        },
        (l) =>
          sim
            ? `${l.url}, registered with the simulator`
            : `${l.url}; the deployment must be configured to deliver evaluation-completed webhooks to a URL that reaches this port`,
      );
    } else {
      out.note(
        "  --  no webhook listener (pass --webhook-port and --webhook-secret to receive the result by webhook); the evaluation's result will be polled",
      );
    }

    const reference = await step(
      "read reference data",
      async () => {
        const [channels, jurisdictions, products] = await Promise.all([
          client.reference.channels({ ...(signal ? { signal } : {}) }),
          client.reference.jurisdictions({ ...(signal ? { signal } : {}) }),
          client.reference.products({ ...(signal ? { signal } : {}) }),
        ]);
        const first = <T>(list: T[], name: string): T => {
          if (list[0] === undefined) throw new Error(`The service lists no ${name}; the demo needs one`);
          return list[0];
        };
        return {
          counts: [channels.channels.length, jurisdictions.jurisdictions.length, products.products.length],
          channel: first(channels.channels, "channels"),
          jurisdiction: first(jurisdictions.jurisdictions, "jurisdictions"),
          product: first(products.products, "products"),
        };
      },
      (r) => `${r.counts[0]} channels, ${r.counts[1]} jurisdictions, ${r.counts[2]} products`,
    );

    const pdf = samplePdf(options.pdfBytes);
    const fileName = "spring-savings-flyer.pdf";
    const bar = uploadProgressBar(io.stderr, "uploading", Boolean(io.stderr.isTTY) && !out.json);
    const chunksBefore = counter.counts.chunks;
    const upload = await step(
      "upload a sample PDF",
      async () => {
        try {
          return await client.uploads.upload(new Blob([pdf], { type: "application/pdf" }), {
            fileName,
            contentType: "application/pdf",
            // Small chunks on a deployment too, so the bar moves there as well.
            chunkSize: 64 * 1024,
            onProgress: bar.onProgress,
            ...(signal ? { signal } : {}),
          });
        } finally {
          bar.stop();
        }
      },
      (u) =>
        `${fileName}, ${formatBytes(u.fileSize)} in ${counter.counts.chunks - chunksBefore} chunks, upload ${u.uploadId} ${u.status}`,
    );
    const chunks = counter.counts.chunks - chunksBefore;

    const link = options.link ?? DEFAULT_LINK;
    const capture = await step(
      "capture a link",
      () => client.links.capture(link, { ...(signal ? { signal } : {}) }),
      (c) => `${link} -> upload ${c.uploadId} (${c.fileFormat})`,
    );

    const tags = ["demo", "spring-2026"];
    const metadata = { campaign: "spring-2026", source: "promo-review-demo" };
    const created = await step(
      "create a promotion",
      () =>
        client.promotions.create(
          {
            promotionName: "Spring Savings (promo-review demo)",
            productIds: [reference.product.id],
            channelIds: [reference.channel.id],
            jurisdictionId: reference.jurisdiction.id,
            fileFormat: "pdf",
            uploadIds: [upload.uploadId],
            details: "Flyer for the spring savings campaign, made by `promo-review demo`.",
            tags,
            metadata,
          },
          { ...(signal ? { signal } : {}) },
        ),
      (p) =>
        `${p.promotionId}${p.publicId ? ` (${p.publicId})` : ""}, version ${p.version}, tags ${p.tags.join(", ")}, metadata ${JSON.stringify(p.metadata)}`,
    );
    const promotionId = created.promotionId;

    const fromLink = await step(
      "add a version from the captured link",
      () =>
        client.promotions.createVersion(
          promotionId,
          {
            fileFormat: capture.fileFormat,
            uploadIds: [capture.uploadId],
            caption: "Landing page",
          },
          { ...(signal ? { signal } : {}) },
        ),
      (v) => `version ${v.version}, ${v.versionId}`,
    );

    let fromWebApp: string | undefined;
    if (sim) {
      const webApp = sim.control.addWebAppVersion(promotionId, { isFinancialPromotion: true });
      fromWebApp = webApp.versionId;
      steps.push({
        step: "add a version in the web app",
        ok: true,
        detail: `version ${webApp.version}, ${webApp.versionId} (made through the simulator's control surface)`,
      });
      out.note(`  ok  add a version in the web app: version ${webApp.version}, ${webApp.versionId}`);
    } else {
      out.note("  --  add a version in the web app: skipped (only the simulator can play the web app)");
    }

    const latest = await step(
      "read the latest version",
      () => client.promotions.get(promotionId, { ...(signal ? { signal } : {}) }),
      (p) => `version ${p.latestVersion} of ${p.versionCount} (${p.latestVersionId}), status ${p.status}`,
    );

    const submitted = await step(
      "submit the latest version",
      () =>
        client.promotions.submitLatest(
          promotionId,
          { reviewerEmail: "compliance@example.com" },
          { ...(signal ? { signal } : {}) },
        ),
      (s) => `version ${s.version}, status ${s.status}`,
    );

    if (sim) {
      // A reviewer decides in the web app; the simulator plays the reviewer.
      sim.control.setDecision(promotionId, submitted.versionId, {
        decision: "conditionally_approved",
        rationale: "Add the FSCS protection notice to the footer.",
      });
    }
    const decision = await step(
      "read the decision",
      () => client.promotions.decision(promotionId, submitted.versionId, { ...(signal ? { signal } : {}) }),
      (d) =>
        `${d.decision}${d.decidedByUserId ? ` by ${d.decidedByUserId}` : ""}${d.rationale ? `: ${d.rationale}` : ""}`,
    );

    const evaluation = await step(
      listener ? "evaluate and receive the signed webhook" : "evaluate and poll for the result",
      () =>
        client.flows.evaluateAndWait(promotionId, {
          versionId: submitted.versionId,
          timeoutMs: options.timeoutMs ?? 120_000,
          // Without a listener nothing can arrive by webhook: poll at once. The embedded simulator
          // finishes in 200 ms, so a webhook not matched within 5 s is one whose payload this client
          // cannot match (a variant profile's): poll then rather than after the default minute.
          ...(listener ? (sim ? { pollAfterMs: 5_000 } : {}) : { pollAfterMs: 0 }),
          ...(signal ? { signal } : {}),
        }),
      (e) =>
        `${e.status} via ${e.via}${e.via === "webhook" ? ` (signature verified, ${verified.length} delivery)` : ""}, ${e.issues.length} issues`,
    );

    const simulatorLog = sim
      ? (() => {
          const log = sim.control.requests();
          return {
            main: log.filter((r) => r.service === "main").length,
            files: log.filter((r) => r.service === "files").length,
          };
        })()
      : undefined;
    const summary: DemoSummary = {
      mode: embedded ? "embedded" : "service",
      baseUrl: client.settings.baseUrl,
      steps,
      upload: {
        uploadId: upload.uploadId,
        fileName,
        fileSize: upload.fileSize,
        chunks,
        progressReports: bar.reports,
      },
      capture: { url: link, uploadId: capture.uploadId, fileFormat: capture.fileFormat },
      promotion: {
        promotionId,
        ...(created.publicId ? { publicId: created.publicId } : {}),
        tags: created.tags,
        metadata: created.metadata,
      },
      versions: {
        first: created.versionId,
        fromLink: fromLink.versionId,
        ...(fromWebApp ? { fromWebApp } : {}),
      },
      latest: {
        versionId: latest.latestVersionId,
        version: latest.latestVersion,
        versionCount: latest.versionCount,
        status: latest.status,
      },
      submitted: { versionId: submitted.versionId, status: submitted.status },
      decision: {
        versionId: submitted.versionId,
        decision: decision.decision,
        ...(decision.decidedByUserId ? { decidedByUserId: decision.decidedByUserId } : {}),
        ...(decision.rationale ? { rationale: decision.rationale } : {}),
      },
      evaluation: {
        evaluationId: evaluation.evaluationId,
        status: evaluation.status,
        via: evaluation.via,
        verifiedWebhooks: verified.length,
        issues: evaluation.issues.map(({ severity, category, message }) => ({ severity, category, message })),
      },
      requests: {
        ...counter.counts,
        budgetPerMinute: BUDGET_PER_MINUTE,
        ...(simulatorLog ? { simulatorLog } : {}),
      },
    };
    return summary;
  } finally {
    for (const stop of cleanup.reverse()) await stop();
  }
}

/** The summary as people read it. */
export function demoSummaryLines(summary: DemoSummary): string[] {
  const lines = [
    "",
    "Summary",
    `  service:     ${summary.mode === "embedded" ? "embedded simulator" : "deployment"} at ${summary.baseUrl}`,
    `  upload:      ${summary.upload.uploadId} (${summary.upload.fileName}, ${formatBytes(summary.upload.fileSize)}, ${summary.upload.chunks} chunks)`,
    `  capture:     ${summary.capture.uploadId} (${summary.capture.fileFormat}) from ${summary.capture.url}`,
    `  promotion:   ${summary.promotion.promotionId}${summary.promotion.publicId ? ` (${summary.promotion.publicId})` : ""}`,
    `               tags ${summary.promotion.tags.join(", ")}; metadata ${JSON.stringify(summary.promotion.metadata)}`,
    `  latest:      version ${summary.latest.version} of ${summary.latest.versionCount} (${summary.latest.versionId})`,
    `  submitted:   ${summary.submitted.status}`,
    `  decision:    ${summary.decision.decision}${summary.decision.rationale ? ` (${summary.decision.rationale})` : ""}`,
    `  evaluation:  ${summary.evaluation.evaluationId} ${summary.evaluation.status} via ${summary.evaluation.via}, ${summary.evaluation.verifiedWebhooks} verified webhook(s)`,
    `  issues:      ${summary.evaluation.issues.length}`,
    ...summary.evaluation.issues.map((i) => `    - ${i.severity} ${i.category}: ${i.message}`),
    `  requests:    ${summary.requests.main} to the main API (of ${summary.requests.budgetPerMinute} a minute per key), ${summary.requests.files} to the file service`,
  ];
  if (summary.requests.simulatorLog) {
    lines.push(
      `               the simulator logged ${summary.requests.simulatorLog.main} main-API and ${summary.requests.simulatorLog.files} file-service requests`,
    );
  }
  return lines;
}
