/**
 * Bundle sizes as a user's bundler would produce them: esbuild, browser platform, minified, ESM, then
 * gzip level 9. Our packages carry budgets; the peers a user would pick instead are measured in the
 * same run for comparison. One source for the test (which enforces the budgets) and the benchmark
 * report (which prints the table).
 */
import { gzipSync } from "node:zlib";
import { build, type Plugin } from "esbuild";
import { PACKAGE_DIR } from "./bundle.ts";
import { withoutProse } from "./prose.ts";

/** 1 KB = 1024 bytes throughout. */
export const KB = 1024;

export interface SizeTarget {
  label: string;
  /** The module a user writes: what it imports and re-exports is what the bundle keeps. */
  contents: string;
  /** Budget for min+gzip, in bytes. */
  budget?: number;
  /** ours: a whole package or entry; subset: one export a user typically imports; tree-shaken: one small export. */
  kind: "ours" | "subset" | "tree-shaken" | "peer";
  /** A peer (its label) this target must also be smaller than, measured in the same run. */
  under?: string;
  /** A peer (its label) whose min+gzip size, measured in the same run, is this target's budget. */
  atMost?: string;
}

export interface SizeResult extends SizeTarget {
  minified?: number;
  gzipped?: number;
  /**
   * For a whole package of ours: min+gzip of the package's own files alone, every package it imports
   * (ours or not) left out. What its dependencies add is the difference to `gzipped`.
   */
  ownGzipped?: number;
  /**
   * min+gzip of the same bundle with the text of its messages taken out (see `prose.ts`): what its
   * behaviour weighs, whatever the wording. Measured for the peers too, to compare like with like.
   */
  withoutMessagesGzipped?: number;
  /** Why it did not bundle, when it did not. */
  error?: string;
}

/** A whole package, as `export *` keeps it; its budget in bytes, or a peer's size in the same run. */
function whole(name: string, budget?: number | { atMost: string }): SizeTarget {
  const label = `@promo-review/${name}`;
  const target: SizeTarget = { label, contents: `export * from "${label}";`, kind: "ours" };
  if (typeof budget === "number") target.budget = budget;
  else if (budget !== undefined) target.atMost = budget.atMost;
  return target;
}

/** A sub-path entry of a package, whole, as `export *` keeps it; smaller than the peer `under` if given. */
function entry(name: string, budget: number, under?: string): SizeTarget {
  const label = `@promo-review/${name}`;
  return { label, contents: `export * from "${label}";`, kind: "ours", budget, ...(under ? { under } : {}) };
}

/** One export of a package: what a typical user imports (subset), or a small one (tree-shaken). */
function only(name: string, exported: string, kind: "subset" | "tree-shaken", budget?: number): SizeTarget {
  const label = `@promo-review/${name}`;
  return {
    label: `${label}: ${exported} only`,
    contents: `export { ${exported} } from "${label}";`,
    kind,
    ...(budget ? { budget } : {}),
  };
}

/** A job as a user writes it: a whole program, with its budget. */
function program(label: string, contents: string, budget: number): SizeTarget {
  return { label, contents, kind: "subset", budget };
}

/**
 * Issue 34's first job: a Cloudflare Worker that verifies webhooks with the Fetch handler and the
 * memory replay store (the default), as webhook-verify's README shows it. Its ceiling is 6.5 KB.
 */
export const WEBHOOK_WORKER = program(
  "Worker: verify webhooks (Fetch handler, memory replay store)",
  `import { createWebhookVerifier } from "@promo-review/webhook-verify";
const verifier = createWebhookVerifier({ webhookSecret: globalThis.PROMO_REVIEW_WEBHOOK_SECRET });
const handle = verifier.handler(async (event) => { console.log("received", event.type); });
export default { fetch: (request) => handle(request) };`,
  6.5 * KB,
);

/**
 * Issue 34's second job: a page that uploads the File its input gives, with the browser's resume store,
 * as upload-chunker's README shows it. Its ceiling is tus-js-client's size in the same run.
 */
export const BROWSER_UPLOAD: SizeTarget = {
  label: "browser: upload a File",
  contents: `import { createUploader, webStorageResumeStore } from "@promo-review/upload-chunker";
const uploader = createUploader({
  filesUrl: globalThis.FILES_URL,
  sessionToken: globalThis.SESSION_TOKEN,
  workspaceId: globalThis.WORKSPACE_ID,
  store: webStorageResumeStore(),
});
document.querySelector("input[type=file]").addEventListener("change", async (event) => {
  const result = await uploader.upload(event.target.files[0], {
    onProgress: ({ bytesAcknowledged, totalBytes }) => console.log(bytesAcknowledged, totalBytes),
  });
  console.log(result.uploadId);
});`,
  kind: "subset",
  atMost: "tus-js-client",
};

/**
 * Issue 34's third job: one promotion created through the slim path, as promotions-core's README shows
 * it (`@promo-review/promotions-core/slim`: the small client and the one standalone function). Issue
 * 34's ceiling is 14 KB (14336 bytes), not reached yet and so not enforced here: measured 14840 bytes
 * on h-slim34 after merging h-runner34's smaller runner (17833 through `createPromotionsClient` before), 13.30 KB without its
 * messages, so REPORTED_OVER_BUDGET's rule (still over without them) does not hold either and the
 * lead decides. Where it weighs (esbuild metafile, minified bytes): errors' typed, redacting errors
 * 11.9 KB; valibot 6.9 KB (the creation rules); http's pipeline 14.7 KB, of which the operation
 * runner with its valibot checks 3.1 KB (`run-operation.ts` 1.6 KB: query strings, body
 * normalisation and id details a creation does not need), `httpCoreFrom` 0.7 KB, the User-Agent
 * 0.8 KB; promotions-core 7.7 KB (the creation schemas 4.9 KB, the 409 upload wait and the ambiguous
 * creation's explanation 1.7 KB). Cut so far by structure: http's hooks and logger behind
 * `createHttpClient` (about 670 bytes), one module per declaration and the creation answer's schema
 * in its own module (about 320 bytes).
 */
export const SLIM_CREATE: SizeTarget = {
  label: "create one promotion through the slim path",
  contents: `import { createPromotionsCore, promotionsCreate } from "@promo-review/promotions-core/slim";
const core = createPromotionsCore({
  baseUrl: globalThis.PROMO_REVIEW_BASE_URL,
  apiKey: globalThis.PROMO_REVIEW_API_KEY,
  externalUserId: globalThis.PROMO_REVIEW_EXTERNAL_USER_ID,
});
const created = await promotionsCreate(core, globalThis.PROMOTION, { signal: AbortSignal.timeout(30_000) });
console.log(created.promotionId);`,
  kind: "subset",
};

/**
 * Issue 26 let a ceiling be "raised by a measured, explained amount": what OpenTelemetry tracing added
 * to a budgeted bundle that passes no provider (977 and 961 bytes then: errors' `telemetryFrom` with
 * its redacted span wrapper, and the `webhooks.verify` span and deliveries counter). Issue 34 put
 * telemetry behind an import: the verifier publishes through the observation seam and carries none of
 * OpenTelemetry's code, so the raise went down by what was measured in one run: the package
 * 10083 -> 9387 (-696), `createWebhookVerifier` alone 9575 -> 8885 (-690, now under 9 KB). What is left
 * of the raise is the seam's publishing and the rest of the verifier's growth since issue 26.
 */
export const TRACING_RAISE = {
  "@promo-review/webhook-verify": 178, // 10083 -> 9387 (9216 + 171) with the seam; +7 with issue 32's `store` option beside it on the merged tree (9394)
  "@promo-review/webhook-verify: createWebhookVerifier only": 0, // 9575 -> 8885
} as const;

/**
 * Our packages: the whole public surface of each, and single exports. The budgets are issue 19's,
 * which replace issue 9's: errors at most 3 KB; webhook-verify's signature-only entry at most 4.0 KB
 * and under standardwebhooks, the whole verifier (the package, and `createWebhookVerifier` alone) at
 * most 9 KB (raised by TRACING_RAISE); upload-chunker at most tus-js-client's size in the same run; the sdk at most 30 KB.
 */
export const OUR_TARGETS: SizeTarget[] = [
  whole("errors", 3 * KB),
  only("errors", "parseRetryAfter", "tree-shaken"),
  whole("http"),
  whole("webhook-verify", 9 * KB + TRACING_RAISE["@promo-review/webhook-verify"]),
  entry("webhook-verify/signature", 4 * KB, "standardwebhooks"),
  only(
    "webhook-verify",
    "createWebhookVerifier",
    "subset",
    9 * KB + TRACING_RAISE["@promo-review/webhook-verify: createWebhookVerifier only"],
  ),
  only("webhook-verify", "createMemoryReplayStore", "tree-shaken"),
  WEBHOOK_WORKER,
  whole("upload-chunker", { atMost: "tus-js-client" }),
  BROWSER_UPLOAD,
  only("upload-chunker", "formatOf", "tree-shaken"),
  whole("link-capture"),
  whole("promotions-core"),
  SLIM_CREATE,
  whole("sdk", 30 * KB),
  only("sdk", "createClient", "subset"),
  only("sdk", "formatOf", "tree-shaken"),
];

/** A budget a package misses by decision: another requirement weighs more, as measured. */
export interface ReportedOverBudget {
  /**
   * The min+gzip size reported, in bytes (5780 is 5.64 KB). The package may shrink but not grow past
   * it: a change that adds weight to a package over budget fails until this figure is raised on
   * purpose.
   */
  reported: number;
  /** Which requirement the budget gives way to, and where the weight is, as measured. */
  why: string;
}

/**
 * Budgets of issue 19 that a package misses because meeting them would break another requirement
 * (DESIGN.md's typed, redacting errors, the facade's shape, the security rules), with the figure
 * reported. Each row prints as over budget, and the test checks that it is STILL over, even with
 * every message taken out (so the weight is behaviour, not wording: once that stops being true the
 * test fails and the decision is made again), and no larger than reported. Never grow it silently.
 */
export const REPORTED_OVER_BUDGET: Record<string, ReportedOverBudget> = {
  "@promo-review/webhook-verify/signature": {
    reported: 5759,
    why: "raised on purpose from 5711 (+48, issue 27: the a/an article of a body's kind in refusal messages, 'an object', from errors' kindOf); against 4 KB and standardwebhooks (4867 bytes): with every message taken out it is 4.36 KB, under standardwebhooks' 4.54 KB measured the same way, so what puts it over the peer is the wording that names the likely mistake (raw body, rotation, clock skew, env-file whitespace). What puts it over 4 KB is errors' typed base class (redaction of every string and of a replay store's cause, instanceof across copies), about 2 KB: a stand-alone error class measured 3808 bytes but would not be a PromoReviewError and would redact nothing a sender controls. DESIGN.md's one error type and secrets-never-visible win over the bar",
  },
  "browser: upload a File": {
    reported: 20840,
    why: "raised on purpose from 20821 (+19, issue 34 item 4, measured on h-slim34: http's pipeline split into createHttpCore, which a slim client builds on without the hooks' and the logger's code, and createHttpClient, which adds them; the seam's call and httpClientFrom's shared option check cost every full client these bytes). Before that: lowered from 22962 (-2141, issue 34 item 2, measured on the tree that merged it: the tracerProvider/meterProvider options left http and every package, and OpenTelemetry's code moved from errors into @promo-review/opentelemetry, which a bundle that does not import it no longer carries; 20821 against tus-js-client's 16312 in the same run). Before that: (issue 34 item 5, measured on h-upload34b after items 8 and 2: the job as upload-chunker's README shows it, 22.42 KB against tus-js-client's 15.93 KB. Where it weighs, by esbuild's metafile (minified bytes): http's older tracerProvider/meterProvider path, about 5.1 KB minified (errors' otel-request, telemetry, traced-span, telemetry-context, otel-upload-wait; about 2 KB gzip, 20606 bytes measured without it), which h-seam34b removes; eventemitter3 2.8 KB (DESIGN.md's choice); the stream source 2.8 KB that a File upload never calls but `openSource` reaches; the chunk loop 4.1 KB; the web storage store 2.0 KB; typed errors and the unexpected-response checks about 6 KB)",
  },
  "Worker: verify webhooks (Fetch handler, memory replay store)": {
    reported: 8835,
    why: "issue 34's 6.5 KB, not reached: 8835 bytes. Measured on the branch that added the job (the first three in a scratch copy of this program, one byte lighter): 8953 before, 8926 with the delivery read top-down (issue 34 item 8), 8869 with sign's Ed25519 signing moved beside the verifier's crypto, 8835 with reading a signing key (whsk_) moved to sign. With every message taken out it is still 7207 bytes, so no wording brings it under 6.5 KB: the weight is behaviour. Measured by leaving one module out at a time (min+gzip it takes away): errors' typed, redacting base class 1312 and its redaction 691 (DESIGN.md's one error type, secrets never visible), the payload's typing with warnings 853 + 578 (typed events, nothing of a body lost), reading headers of every shape 720, secrets read and checked at start-up 533, the handler's answers 374, Web Crypto HMAC with v1a's Ed25519 344, the observation seam's publishing 246 (a run-time option: a bundler cannot drop it), and Node's (req, res) handler 189, which every verifier carries because `verifier.nodeHandler` is public API on the `/web` entry too (README: `/web` anywhere, to force Web Crypto). standardwebhooks (4.84 KB) does none of the typed events, the Fetch handler with its answers and replay claims, redaction or v1a. Ruled out on the same tree (8835 re-measured): no valibot and no per-event parse table in the bundle (payload-fields reads fields by hand), no class private fields or WeakMaps (target ES2022, nothing lowered), and the longest repeated property name (`webhookId`, 24 times, 216 raw bytes) costs tens of bytes after gzip; by module in the minified output, errors' base class 2240 and redaction 1577, headers 2101, delivery 2083, payload-fields 1591, secrets 1583, body 1457 of 22456 raw bytes",
  },
  "@promo-review/upload-chunker": {
    reported: 20944,
    why: "raised on purpose from 20918 (+26, issue 34 item 4, measured on h-slim34: http's pipeline split into createHttpCore and createHttpClient, as the browser upload's row says). Before that: lowered from 23028 (-2110, issue 34 item 2, measured on the tree that merged it: the tracerProvider/meterProvider options left http and every package, and OpenTelemetry's code moved from errors into @promo-review/opentelemetry, which a bundle that does not import it no longer carries; against tus-js-client's 16312 bytes in the same run, the rest of the gap is behaviour tus does not have, as below). Before that: raised from 22733 (+295, issue 34 item 8 on h-upload34b: the upload reads top-down in upload.ts, each phase handing the next a small value, and the chunk loop steps an immutable value instead of editing one shared object; measured 23138 (+405) at first, 110 taken back by letting the loop's run extend the upload's context; the rest is the named steps and the values' property names). Before that: raised for a transition from 22622 (+111, measured on the tree that merged issue 34's promotions-core step: http's older tracerProvider/meterProvider path, which every upload bundle still carries, now also builds the upload-wait events of promotions-core and names the client's observer as `http.telemetry`; it goes with the providers once the facade takes `telemetry`). Before that: lowered from 22716 (-94, issue 34 item 2, the upload: the uploader publishes through the observation seam and carries no OpenTelemetry code of its own; its events and throughput histogram are the adapter's, errors/src/otel-upload.ts. What is left of the adapter's names in this bundle, and about 2 KB (20606 bytes measured with it stubbed out), is http's older tracerProvider/meterProvider path in createHttpClient, which builds the OpenTelemetry observer itself until promotions-core and the facade take `telemetry` and http drops the providers; against tus-js-client's 16312 bytes in the same run). Before that: raised on purpose from 22466 (+250, issue 32, measured on the tree that merged it with issue 34's seam: `createUploader({ store })` takes the client's shared store from @promo-review/store, so the main entry carries the few lines that keep resume points as values with expiry on it (kit-resume-store.ts, with the record check of stored-record.ts); the store itself is the caller's import). Before that: raised for a transition from 21958 (+508, issue 34 item 2: the observation seam's first steps; http publishes through the seam, and a client given the older tracerProvider/meterProvider builds the OpenTelemetry observer itself until every package takes `telemetry` and the providers go, which removes all of it). Before that: raised on purpose from 19161 (+2797, issue 26: OpenTelemetry, measured against the commit before it in one run): the tracing code every bundle carries because a provider is a value passed at run time (a bundler cannot drop what a call might switch on): http's CLIENT spans by the stable HTTP client conventions, the duration histogram, the retry and 429 counters and traceparent (+2014 in http alone), errors' shared telemetryFrom/traced with redacted attributes (about 650), and the upload's span, its chunk, resume and poll events and the throughput histogram (about 760). Without a provider none of it runs. Before that: raised on purpose from 17777 (+1384, measured after merging issue 25 and 27's work): issue 25's browser resume (about +795: webStorageResumeStore's expiry and bounded sweep, fail-open storage told once through the logger, the Web Locks that send a file once across tabs, the store call that carries the logger and signal), issue 27's pipeline (about +546: http's expected statuses, so a 308 is an answer, and a chunk deadline that follows its bytes with a low-speed limit) and the rest from the plain-field, id-check and a/an changes. Against tus-js-client (16312 bytes in the same run): without messages it is 17.18 KB against tus-js-client's 14.70 KB, so the gap is behaviour tus does not have: http's origin policy, redirect checks and body deadlines, checked answers and bounded resyncs, hooks, logger, User-Agent and $response, typed redacting errors, the resume guarantees above, and DESIGN.md's eventemitter3 (a hand-written emitter measured 753 bytes less)",
  },
  "@promo-review/sdk": {
    reported: 47840,
    why: "raised on purpose from 47750 (+90, issue 34 item 4, measured on h-slim34 after merging h-runner34: +31 from http's pipeline split into createHttpCore and createHttpClient, as the browser upload's row says, the rest from the declarations one module each and the full client running its creations through the slim path's functions, one implementation for both). Before that: raised from 47384 (+366, issue 34 item 3 on h-runner34, measured against the commit before it in one run: 47380 before, 47750 after): promotions-core runs every operation and reference read through http's runOperation. By esbuild's metafile (minified bytes), the runner (1399) and http's schema checks (1483, moved from promotions-core's 1255) stand where promotions-core's own request helpers stood (promotions, reference-cache, comment-reply and validate: -1313), and the reference and comment-reply declarations, which the client never read before, are now what its reads and replies run (+690): the declarations are data every bundle of the whole client carries. Before that: lowered from 50465 (-3081; 47379 in one build and 47384 in another of the same release, whose version strings differed: gzip moves a few bytes with them, issue 34 item 2, measured on the tree that merged it: the tracerProvider/meterProvider options left http and every package, and OpenTelemetry's code moved from errors into @promo-review/opentelemetry, which a bundle that does not import it no longer carries; against 30 KB and issue 34's 35 KB the rest is the packages it assembles, as below). Before that: raised from 50233 (+232, issue 34 item 8 on h-upload34b: the uploader it assembles reads top-down, as upload-chunker's row says). Before that: raised for a transition from 49796 (+437, measured on the tree that merged issue 32's round trips, issue 33's store journal and issue 34's upload, link and promotions-core steps: the store kit's compare-and-set (`swap`) in the memory store the facade defaults to, about +53, which the store journal needs; and, until the facade's flows take `telemetry` and http drops the older providers, the seam's `observed` beside errors' `traced`, and the upload, link and upload-wait callbacks of the OpenTelemetry observer the facade still builds from its providers, about +381). Before that: raised on purpose from 47055 (+2741, measured on the tree that merged issues 32, 33 and 34's first steps; each branch measured its own share against the commit before it: issue 33 about +2076, issue 32 about +575). Issue 33: `client.batch.run`: the facade shape names the batch runner on the client, so its steps, the journal state it reads (ambiguous vs interrupted steps), the pool and the progress are in every bundle of the main entry; the manifest reader, the CSV parser (papaparse), the plan and the file journal stay on `@promo-review/sdk/batch` and `/node`). Issue 32: one store for the whole client: upload-chunker's resume points on a kit store, the kit's memory store, which now also keeps claims and values beside the budget's windows, and `createClient({ store })` handing it to the three parts; `sharedStore` is left to @promo-review/store's import so users of memory do not carry it). Before that: raised for a transition from 46257 (+798, issue 34 item 2: the observation seam's first steps, as upload-chunker's row says, and rate-budget's and webhook-verify's publishers beside the OpenTelemetry observer the facade's older providers still build). Before that: raised on purpose from 41071 (+5186, issue 26: OpenTelemetry in every package it assembles, measured against the commit before it in one run: http +2014, upload-chunker +2797 with http's, link-capture +2398 and promotions-core +2584 with http's, webhook-verify +977, rate-budget's wait spans and histograms, the facade's flows as spans). A provider is a value passed at run time, so the code that builds spans is in every bundle; without a provider none of it runs. Keeping it out would take an import the user adds (an opt-in entry), which issue 26's `createClient({ tracerProvider })` rules out. Before that: raised on purpose from 40024 (+1047, measured after merging issue 25 and 27's work; the last 14 bytes are evaluateAndWait refusing a versionId given as null): the upload-chunker growth above, the budget's own-timer waiting for Workers (issue 25 item 5), the reference cache and key import that never await another request's I/O, the local id checks of every operation and the expected-status pipeline (issue 27). Against 30 KB: with every message taken out it is still 35.53 KB. DESIGN.md's facade assembles every package on one client (uploads, links, promotions with valibot's validation of every stated rule, reference data, webhooks, the shared budget), and its own files are 3.7 KB; the weight is the behaviour of the packages it assembles",
  },
};

/** The peers a user would pick instead. */
export const PEER_TARGETS: SizeTarget[] = [
  { label: "standardwebhooks", contents: `export * from "standardwebhooks";`, kind: "peer" },
  { label: "svix", contents: `export * from "svix";`, kind: "peer" },
  { label: "tus-js-client", contents: `export * from "tus-js-client";`, kind: "peer" },
  { label: "@octokit/core", contents: `export * from "@octokit/core";`, kind: "peer" },
  { label: "stripe", contents: `export { default } from "stripe";`, kind: "peer" },
];

/**
 * Leaves out every package the measured one imports: only the module the user writes resolves a bare
 * specifier, so what is bundled is the package's own files.
 */
const ownFilesOnly: Plugin = {
  name: "own-files-only",
  setup(plugin) {
    plugin.onResolve({ filter: /^[^./]/ }, (args) =>
      args.importer === "<stdin>" ? undefined : { path: args.path, external: true },
    );
  },
};

/** Minified and gzipped bytes of one module as a user's bundler would build it. */
async function bundleSize(contents: string, plugins: Plugin[] = []) {
  const result = await build({
    stdin: { contents, resolveDir: PACKAGE_DIR, loader: "js" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "silent",
    plugins,
  });
  const code = result.outputFiles[0]!.contents;
  return { minified: code.byteLength, gzipped: gzipSync(code, { level: 9 }).byteLength, code };
}

/** Bundles one target and measures it; a failure to bundle is recorded, not thrown. */
export async function measure(target: SizeTarget): Promise<SizeResult> {
  try {
    const { code, ...size } = await bundleSize(target.contents);
    const words = withoutProse(new TextDecoder().decode(code));
    const withoutMessagesGzipped = gzipSync(words, { level: 9 }).byteLength;
    if (target.kind !== "ours") return { ...target, ...size, withoutMessagesGzipped };
    const own = await bundleSize(target.contents, [ownFilesOnly]);
    return { ...target, ...size, ownGzipped: own.gzipped, withoutMessagesGzipped };
  } catch (error) {
    const message = error instanceof Error ? error.message.split("\n").slice(0, 3).join(" ") : String(error);
    return { ...target, error: message };
  }
}

/**
 * Names only `@promo-review/opentelemetry` uses (OpenTelemetry's attribute and metric names, and ours
 * under `promo_review.`): a bundle that does not import the adapter must hold none of them.
 */
export const ADAPTER_NAMES = ["http.request.method", "url.template", "promo_review."] as const;

/**
 * Jobs whose bundles import no adapter and, since issue 34, carry none of its names: the Worker that
 * verifies webhooks (the verifier alone, and the whole package), promotions-core's whole package, and
 * the facade (the whole package, and `createClient` alone), and the slim path's creation.
 */
export const WITHOUT_ADAPTER: SizeTarget[] = [
  WEBHOOK_WORKER,
  SLIM_CREATE,
  only("webhook-verify", "createWebhookVerifier", "subset"),
  whole("webhook-verify"),
  whole("promotions-core"),
  whole("sdk"),
  only("sdk", "createClient", "subset"),
];

/** The adapter's names found in `target`'s bundle (none, for a job that does not import the adapter). */
export async function adapterNamesIn(target: SizeTarget): Promise<string[]> {
  const text = new TextDecoder().decode((await bundleSize(target.contents)).code);
  return ADAPTER_NAMES.filter((name) => text.includes(name));
}

export async function measureAll(
  targets: SizeTarget[] = [...OUR_TARGETS, ...PEER_TARGETS],
): Promise<SizeResult[]> {
  const results: SizeResult[] = [];
  for (const target of targets) results.push(await measure(target));
  // A budget that is a peer's size is that peer's figure from this same run.
  for (const r of results) {
    if (r.atMost === undefined) continue;
    const peer = results.find((p) => p.kind === "peer" && p.label === r.atMost);
    if (peer?.gzipped !== undefined) r.budget = peer.gzipped;
  }
  return results;
}

const kb = (bytes: number | undefined) => (bytes === undefined ? "–" : `${(bytes / KB).toFixed(2)} KB`);

/** The results as a Markdown table. */
export function sizeTable(results: SizeResult[]): string {
  const lines = [
    "| bundle (esbuild, browser, minified) | kind | minified | min+gzip | own files only | without messages | budget | within |",
    "|---|---|---:|---:|---:|---:|---:|:---:|",
  ];
  for (const r of results) {
    const reported = REPORTED_OVER_BUDGET[r.label] !== undefined ? " (reported)" : "";
    const within =
      r.error !== undefined
        ? "does not bundle"
        : r.budget === undefined
          ? ""
          : r.gzipped! <= r.budget
            ? "yes"
            : `**NO**${reported}`;
    lines.push(
      `| ${r.label} | ${r.kind} | ${kb(r.minified)} | ${kb(r.gzipped)} | ${r.ownGzipped === undefined ? "" : kb(r.ownGzipped)} | ${r.withoutMessagesGzipped === undefined ? "" : kb(r.withoutMessagesGzipped)} | ${r.budget ? kb(r.budget) : ""}${r.atMost ? ` (${r.atMost})` : ""} | ${within} |`,
    );
  }
  const failed = results.filter((r) => r.error !== undefined);
  for (const r of failed) lines.push("", `${r.label} does not bundle for the browser: ${r.error}`);
  return `${lines.join("\n")}\n`;
}
