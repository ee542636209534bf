/**
 * The demo's workflow as a table of named steps ({@link DEMO_STEPS}): each row says what it is called,
 * when it runs, what it does, what it prints and what the summary records. {@link runStep} runs a row.
 */
import {
  type CaptureResponse,
  createClient,
  type EvaluationOutcome,
  type PromoReviewClient,
} from "@promo-review/sdk";
import { type Simulator, startSimulator } from "@promo-review/simulator";
import type { Colors } from "../colors.js";
import { type CliIo, telemetryOf } from "../io.js";
import type { Output } from "../output.js";
import { formatBytes, type UploadProgressBar, uploadProgressBar } from "../progress.js";
import { type CountingFetch, countingFetch } from "../request-counter.js";
import { samplePdf } from "../sample-pdf.js";
import { clientFrom, type GlobalOptions, hasSetting, requireSettings } from "../settings.js";
import { UsageError } from "../usage-error.js";
import { startWebhookListener, type WebhookListener } from "../webhook-listener.js";

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
const DEFAULT_LINK = "https://example.com/offers/spring-savings";
/** The sample file's name. */
export const FILE_NAME = "spring-savings-flyer.pdf";
const TAGS = ["demo", "spring-2026"];
const METADATA = { campaign: "spring-2026", source: "promo-review-demo" };

type ResultOf<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;
type Client = PromoReviewClient;

/** What the steps produce, by name: later steps and the summary read what earlier ones left. */
export interface Results {
  connection: { client: Client; counter: CountingFetch };
  listener: WebhookListener;
  reference: { counts: number[]; channelId: string; jurisdictionId: string; productId: string };
  upload: { response: ResultOf<Client["uploads"]["upload"]>; chunks: number; bar: UploadProgressBar };
  capture: CaptureResponse;
  created: ResultOf<Client["promotions"]["create"]>;
  fromLink: ResultOf<Client["promotions"]["createVersion"]>;
  fromWebApp: { version: number; versionId: string };
  latest: ResultOf<Client["promotions"]["get"]>;
  submitted: ResultOf<Client["promotions"]["submitLatest"]>;
  decision: ResultOf<Client["promotions"]["decision"]>;
  evaluation: EvaluationOutcome;
}

/** One run of the demo: its settings, what the steps produced, and what to stop at the end. */
export interface DemoRun {
  options: DemoOptions;
  io: CliIo;
  out: Output;
  env: Record<string, string | undefined>;
  /** The run's signal, as each call takes it. */
  call: { signal?: AbortSignal };
  /** Whether the simulator runs in this process (no base URL in the settings). */
  embedded: boolean;
  colors: Colors;
  sim?: Simulator;
  steps: DemoStep[];
  got: Partial<Results>;
  verified: string[];
  cleanup: (() => Promise<void> | void)[];
}

/** One row of the table: a named piece of the workflow. */
export interface Step<K extends keyof Results> {
  /** What progress and the summary call it; none for a silent preparation (not printed, not recorded). */
  label?: string | ((run: DemoRun) => string);
  /** Runs only when this holds; otherwise `skipped` is printed, when there is one. */
  when?(run: DemoRun): boolean;
  skipped?: string;
  /** Where its result goes in {@link Results}. */
  key: K;
  run(run: DemoRun): Promise<Results[K]>;
  /** The detail printed after `ok`. */
  print?(value: Results[K], run: DemoRun): string;
  /** The detail the summary records. Default: the printed one. */
  record?(value: Results[K], run: DemoRun): string;
}

/** A row of the table, typed by the result it names. */
function step<K extends keyof Results>(row: Step<K>): Step<keyof Results> {
  return row;
}

/** The result of an earlier step; a step that did not run is a bug in the table, said plainly. */
export function need<K extends keyof Results>(run: DemoRun, key: K): Results[K] {
  const value = run.got[key];
  if (value === undefined) throw new Error(`The demo's step "${key}" has not run`);
  return value as Results[K];
}

/** The client the connection step made. */
export const clientOf = (run: DemoRun) => need(run, "connection").client;

function simOf(run: DemoRun): Simulator {
  if (!run.sim) throw new Error("Only the embedded simulator can play the web app and the reviewer");
  return run.sim;
}

/** Starts the simulator in this process, and a client of it that counts its requests. */
const startTheSimulator = step({
  label: "start the simulator",
  when: (run) => run.embedded,
  key: "connection",
  async run(run) {
    // Small chunks, so the sample PDF goes in several and the progress bar has something to show.
    const sim = await startSimulator({
      maxChunkSize: 64 * 1024,
      profile: run.options.profile || undefined,
    });
    run.sim = sim;
    run.cleanup.push(() => sim.close());
    const counter = countingFetch(sim);
    const client = createClient({
      apiKey: sim.apiKey,
      externalUserId: sim.externalUserId,
      baseUrl: sim.baseUrl,
      filesUrl: sim.filesUrl,
      webhookSecret: sim.webhookSecret,
      // The simulator is the whole configuration: nothing from this shell's PROMO_REVIEW_* leaks in.
      env: {},
      fetch: counter.fetch,
      ...telemetryOf(run.io),
    });
    return { client, counter };
  },
  print(_, run) {
    const { baseUrl, filesUrl, profile } = simOf(run);
    return `main API ${baseUrl}, file service ${filesUrl}${profile.seed ? `, variant profile ${profile.seed}` : ""}`;
  },
});

/** Connects to the deployment the settings name; every missing setting is named at once. */
const connectToTheService = step({
  when: (run) => !run.embedded,
  key: "connection",
  async run({ options, env, io }) {
    const counter = countingFetch(
      requireSettings(
        options.globals,
        env,
        "the demo runs against the deployment at the base URL given; without --base-url and PROMO_REVIEW_BASE_URL it starts its own simulator",
      ),
    );
    if (options.webhookPort !== undefined && !hasSetting("webhookSecret", options.globals, env)) {
      throw new UsageError("Webhooks cannot be verified without the endpoint's secret", [
        {
          field: "--webhook-secret",
          message: "is required with --webhook-port: pass it or set PROMO_REVIEW_WEBHOOK_SECRET",
        },
      ]);
    }
    return {
      client: clientFrom(options.globals, env, { fetch: counter.fetch, ...telemetryOf(io) }),
      counter,
    };
  },
});

const listenForWebhooks = step({
  label: "listen for webhooks",
  when: (run) => run.embedded || run.options.webhookPort !== undefined,
  skipped:
    "  --  no webhook listener (pass --webhook-port and --webhook-secret to receive the result by webhook); the evaluation's result will be polled",
  key: "listener",
  async run(run) {
    const { webhookHost, webhookPort } = run.options;
    const started = await startWebhookListener(
      clientOf(run).webhooks.nodeHandler((_event, delivery) => {
        run.verified.push(delivery.id);
      }),
      {
        host: webhookHost || undefined,
        port: webhookPort,
      },
    );
    run.cleanup.push(() => started.close());
    run.sim?.control.addWebhookEndpoint(started.url);
    return started;
  },
  print: (listener, { sim }) =>
    sim
      ? `${listener.url}, registered with the simulator`
      : `${listener.url}; the deployment must be configured to deliver evaluation-completed webhooks to a URL that reaches this port`,
});

const readReferenceData = step({
  label: "read reference data",
  key: "reference",
  async run(run) {
    const { reference } = clientOf(run);
    const [channels, jurisdictions, products] = await Promise.all([
      reference.channels(run.call),
      reference.jurisdictions(run.call),
      reference.products(run.call),
    ]);
    const first = <T extends { id: string }>(list: T[], name: string): string => {
      if (list[0] === undefined) throw new Error(`The service lists no ${name}; the demo needs one`);
      return list[0].id;
    };
    return {
      counts: [channels.channels.length, jurisdictions.jurisdictions.length, products.products.length],
      channelId: first(channels.channels, "channels"),
      jurisdictionId: first(jurisdictions.jurisdictions, "jurisdictions"),
      productId: first(products.products, "products"),
    };
  },
  print: ({ counts }) => `${counts[0]} channels, ${counts[1]} jurisdictions, ${counts[2]} products`,
});

const uploadASamplePdf = step({
  label: "upload a sample PDF",
  key: "upload",
  async run(run) {
    const { client, counter } = need(run, "connection");
    const bar = uploadProgressBar(run.io.stderr, "uploading", Boolean(run.io.stderr.isTTY) && !run.out.json);
    const chunksBefore = counter.counts.chunks;
    try {
      const pdf = samplePdf(run.options.pdfBytes);
      const response = await client.uploads.upload(new Blob([pdf], { type: "application/pdf" }), {
        fileName: FILE_NAME,
        contentType: "application/pdf",
        // Small chunks on a deployment too, so the bar moves there as well.
        chunkSize: 64 * 1024,
        onProgress: bar.onProgress,
        ...run.call,
      });
      return { response, chunks: counter.counts.chunks - chunksBefore, bar };
    } finally {
      bar.stop();
    }
  },
  print: ({ response, chunks }) =>
    `${FILE_NAME}, ${formatBytes(response.fileSize)} in ${chunks} chunks, upload ${response.uploadId} ${response.status}`,
});

/** The link the demo captures. */
export const linkOf = (run: DemoRun) => run.options.link ?? DEFAULT_LINK;

const captureALink = step({
  label: "capture a link",
  key: "capture",
  run: (run) => clientOf(run).links.capture(linkOf(run), run.call),
  print: (capture, run) => `${linkOf(run)} -> upload ${capture.uploadId} (${capture.fileFormat})`,
});

const createAPromotion = step({
  label: "create a promotion",
  key: "created",
  run(run) {
    const reference = need(run, "reference");
    return clientOf(run).promotions.create(
      {
        promotionName: "Spring Savings (promo-review demo)",
        productIds: [reference.productId],
        channelIds: [reference.channelId],
        jurisdictionId: reference.jurisdictionId,
        fileFormat: "pdf",
        uploadIds: [need(run, "upload").response.uploadId],
        details: "Flyer for the spring savings campaign, made by `promo-review demo`.",
        tags: TAGS,
        metadata: METADATA,
      },
      run.call,
    );
  },
  print: (p) =>
    `${p.promotionId}${p.publicId ? ` (${p.publicId})` : ""}, version ${p.version}, tags ${p.tags.join(", ")}, metadata ${JSON.stringify(p.metadata)}`,
});

const promotionIdOf = (run: DemoRun) => need(run, "created").promotionId;

const addAVersionFromTheLink = step({
  label: "add a version from the captured link",
  key: "fromLink",
  run(run) {
    const capture = need(run, "capture");
    return clientOf(run).promotions.createVersion(
      promotionIdOf(run),
      { fileFormat: capture.fileFormat, uploadIds: [capture.uploadId], caption: "Landing page" },
      run.call,
    );
  },
  print: (v) => `version ${v.version}, ${v.versionId}`,
});

const addAVersionInTheWebApp = step({
  label: "add a version in the web app",
  when: (run) => run.sim !== undefined,
  skipped: "  --  add a version in the web app: skipped (only the simulator can play the web app)",
  key: "fromWebApp",
  run: async (run) => simOf(run).control.addWebAppVersion(promotionIdOf(run), { isFinancialPromotion: true }),
  print: (v) => `version ${v.version}, ${v.versionId}`,
  record: (v) => `version ${v.version}, ${v.versionId} (made through the simulator's control surface)`,
});

const readTheLatestVersion = step({
  label: "read the latest version",
  key: "latest",
  run: (run) => clientOf(run).promotions.get(promotionIdOf(run), run.call),
  print: (p) => `version ${p.latestVersion} of ${p.versionCount} (${p.latestVersionId}), status ${p.status}`,
});

const submitTheLatestVersion = step({
  label: "submit the latest version",
  key: "submitted",
  run: (run) =>
    clientOf(run).promotions.submitLatest(
      promotionIdOf(run),
      { reviewerEmail: "compliance@example.com" },
      run.call,
    ),
  print: (s) => `version ${s.version}, status ${s.status}`,
});

const readTheDecision = step({
  label: "read the decision",
  key: "decision",
  run(run) {
    const { versionId } = need(run, "submitted");
    // A reviewer decides in the web app; the embedded simulator plays the reviewer.
    run.sim?.control.setDecision(promotionIdOf(run), versionId, {
      decision: "conditionally_approved",
      rationale: "Add the FSCS protection notice to the footer.",
    });
    return clientOf(run).promotions.decision(promotionIdOf(run), versionId, run.call);
  },
  print: (d) =>
    `${d.decision}${d.decidedByUserId ? ` by ${d.decidedByUserId}` : ""}${d.rationale ? `: ${d.rationale}` : ""}`,
});

const evaluate = step({
  label: (run) =>
    run.got.listener ? "evaluate and receive the signed webhook" : "evaluate and poll for the result",
  key: "evaluation",
  run(run) {
    const listening = run.got.listener !== undefined;
    return clientOf(run).flows.evaluateAndWait(promotionIdOf(run), {
      versionId: need(run, "submitted").versionId,
      timeoutMs: run.options.timeoutMs ?? 120_000,
      // Without a listener nothing can arrive by webhook: poll at once. The embedded simulator
      // finishes in 200 ms, so a webhook not matched within 5 s is one whose payload this client
      // cannot match (a variant profile's): poll then rather than after the default minute.
      pollAfterMs: listening ? (run.sim ? 5_000 : undefined) : 0,
      ...run.call,
    });
  },
  print: (e, { verified }) =>
    `${e.status} via ${e.via}${e.via === "webhook" ? ` (signature verified, ${verified.length} delivery)` : ""}, ${e.issues.length} issues`,
});

/** The workflow, in order. */
export const DEMO_STEPS: readonly Step<keyof Results>[] = [
  startTheSimulator,
  connectToTheService,
  listenForWebhooks,
  readReferenceData,
  uploadASamplePdf,
  captureALink,
  createAPromotion,
  addAVersionFromTheLink,
  addAVersionInTheWebApp,
  readTheLatestVersion,
  submitTheLatestVersion,
  readTheDecision,
  evaluate,
];

/** Runs one row: skipped, silent, or reported as it ends (`ok` with its detail, or `!!` and the error). */
export async function runStep<K extends keyof Results>(run: DemoRun, row: Step<K>): Promise<void> {
  if (row.when && !row.when(run)) {
    if (row.skipped) run.out.note(row.skipped);
    return;
  }
  const label = typeof row.label === "function" ? row.label(run) : row.label;
  if (label === undefined) {
    run.got[row.key] = await row.run(run);
    return;
  }
  try {
    const value = await row.run(run);
    run.got[row.key] = value;
    const printed = row.print?.(value, run) ?? "";
    run.steps.push({ step: label, ok: true, detail: row.record?.(value, run) ?? printed });
    run.out.note(`  ${run.colors.green("ok")}  ${label}: ${printed}`);
  } catch (error) {
    run.steps.push({
      step: label,
      ok: false,
      detail: error instanceof Error ? error.message : String(error),
    });
    run.out.note(`  ${run.colors.red("!!")}  ${label}: failed`);
    throw error;
  }
}
