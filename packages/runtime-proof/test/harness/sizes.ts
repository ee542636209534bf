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

/**
 * Issue 34's first job: a Cloudflare Worker that verifies webhooks with the Fetch handler and the
 * memory replay store (the default), as webhook-verify's README shows a Worker ("The Fetch entry"):
 * through `@promo-review/webhook-verify/fetch`, whose verifier reads a `Request` only. Its ceiling is
 * 6.5 KB (6656 bytes); it is over by its messages, reported in REPORTED_OVER_BUDGET (`because:
 * "messages"`): with every message taken out it is within, so its code is held to the ceiling and its
 * whole bundle to the figure reported. Measured on h-verify34d: 7858
 * bytes (6604 without messages). Where it weighs, min+gzip each part takes away when left out of the
 * bundle (the parts overlap a little): errors 1.98 KB (the typed base class with its message and
 * redacted causes 765, redaction of every string 703, the documented-code vocabulary 221 that keeps
 * codes readable under redaction, the details accessors 113, instanceof across copies 90, the
 * WebhookVerificationError class 89); the payload's typing with warnings 820; the delivery's steps
 * (signature, timestamp, replay claim, with their messages) 711; headers checked for form and the
 * Request read 623; the handler and its answers 563; secrets read and checked at start-up 554; Web
 * Crypto HMAC and Ed25519 with base64 454; the v1 and v1a schemes 262; the observation seam's
 * publishing 246; the verifier object 196; the body read within its cap 162; the memory store 92.
 * What a Worker carries and never runs (the Node backend's synchronous paths, raw-bytes and signing
 * keys, `verify(request)`'s reader, the deprecated `replayStore`) is about 100 bytes in all: the rest is
 * behaviour the Worker runs.
 */
export const WEBHOOK_WORKER: SizeTarget = {
  label: "Worker: verify webhooks (Fetch entry, Fetch handler, memory replay store)",
  contents: `import { createWebhookVerifier } from "@promo-review/webhook-verify/fetch";
const verifier = createWebhookVerifier({ webhookSecret: globalThis.PROMO_REVIEW_WEBHOOK_SECRET });
const handle = verifier.handler(async (event) => { console.log("received", event.type); });
export default { fetch: (request) => handle(request) };`,
  kind: "subset",
  budget: 6.5 * KB,
};

/**
 * The same Worker on the main entry (`@promo-review/webhook-verify`, whose verifier also reads header
 * records and arrays, text and `ArrayBuffer` bodies, and has the Node handler). Measured beside
 * {@link WEBHOOK_WORKER} without a ceiling of its own, so that each run shows what the Fetch entry saves.
 */
export const WEBHOOK_WORKER_MAIN_ENTRY: SizeTarget = {
  label: "Worker: verify webhooks through the main entry (no ceiling of its own)",
  contents: WEBHOOK_WORKER.contents.replace(
    '"@promo-review/webhook-verify/fetch"',
    '"@promo-review/webhook-verify"',
  ),
  kind: "subset",
};

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
 * 34's ceiling is 14 KB (14336 bytes), enforced: 14303 bytes since errors looks a code up in own keys only (+10), 14293 on the merged tree (13019 without its
 * messages), 14325 on h-slim34b (14870 before it, 17833 through `createPromotionsClient`); +20 for
 * h-ops34c's one `uuidDetails` and routes, -52 for the runner laying the schema's output over the
 * body instead of comparing each field as JSON. Cut by structure on h-slim34b: a
 * browser build resolves http's `#user-agent` import to a module that adds no header, so a page
 * carries no runtime detection (-325; Workers, edge functions, Node, Deno and Bun keep it); the
 * decision lists marked pure, dropped when unused (-74); the path templates written out whole (-31);
 * tag names trimmed through the transform the list uses anyway (-22); a date read once for both date
 * fields, its time's ranges in the pattern and its day checked by the calendar (-36); one plain-object
 * test (-11); small ones in http's pipeline (the attempt's observer in one variable, `$response` with
 * `defineProperty`'s defaults, one test for the options' problems: -33) and in promotions-core (-13).
 * Before that, on h-slim34: http's hooks and logger behind `createHttpClient` (about 670 bytes), one
 * module per declaration and the creation answer's schema in its own module (about 320 bytes). What
 * is left to cut, measured by trying each and reverting: the operation runner's query strings 24
 * bytes (public API of `runOperation`); the named list of options `httpCoreFrom` passes on (client-from.ts,
 * kept so that a config class's getters are read and a package's own options never reach the client)
 * 90. Where it weighs (esbuild metafile, minified bytes, 38.8 KB in all): errors' typed, redacting
 * errors 11.6 KB; valibot 6.6 KB (the creation rules and the answer's); http's pipeline 13.3 KB (the
 * attempt 2.4, the client 1.7, the operation runner 1.4 and its checks with valibot's issues 1.4);
 * promotions-core 7.0 KB (the creation schemas 4.1 KB, the 409 upload wait and the ambiguous
 * creation's explanation 1.7 KB).
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
  budget: 14 * KB,
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
 * most 9 KB (raised by TRACING_RAISE); upload-chunker at most tus-js-client's size in the same run; the sdk at most 35 KB (issue 34; issue 19 had 30 KB);
 * one promotion created through the slim path at most 14 KB (issue 34, SLIM_CREATE).
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
  WEBHOOK_WORKER_MAIN_ENTRY,
  whole("upload-chunker", { atMost: "tus-js-client" }),
  BROWSER_UPLOAD,
  only("upload-chunker", "formatOf", "tree-shaken"),
  whole("link-capture"),
  whole("promotions-core"),
  SLIM_CREATE,
  whole("sdk", 35 * KB),
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
  /**
   * What the weight over the budget is, as the test checks it. `behaviour` (the default): even with the
   * text of every message taken out the bundle is over, so the gap is code another requirement asks
   * for. `messages`: without its messages the bundle is within the budget, so the gap is the wording
   * issue 34 keeps ("every message that names the user's fix stays") once structure has been cut as
   * far as it goes; the test then checks that the code alone stays within the budget, so any growth of
   * the code past it fails and the decision is made again.
   */
  because?: "behaviour" | "messages";
}

/**
 * Budgets of issue 19 that a package misses because meeting them would break another requirement
 * (the typed, redacting errors, the facade's shape, the security rules), with the figure
 * reported. Each row prints as over budget, and the test checks that it is STILL over and no larger
 * than reported, and what the weight is (`because`): behaviour, when even with every message taken
 * out it is over (once that stops being true the test fails and the decision is made again), or the
 * messages the issue keeps, when without them it is within (once the code alone outgrows the budget
 * the test fails). Never grow it silently.
 */
export const REPORTED_OVER_BUDGET: Record<string, ReportedOverBudget> = {
  [WEBHOOK_WORKER.label]: {
    reported: 7858,
    because: "messages",
    why: "issue 34's 6.5 KB against the rule that every message naming the user's fix stays: without its messages the Worker is 6604 bytes, within 6656, so what puts it over is the wording (a raw body re-serialised, a rotated or whitespace-padded secret, clock skew, a replayed id, each named with its fix). Structure was cut as far as it goes without losing behaviour (see WEBHOOK_WORKER: every part of the 7858 bytes is a rule the Worker runs; what it carries and never runs is about 100 bytes). Measured and left: a verification error on a lighter base than PromoReviewError (about 490 bytes, but it would drop the documented-code vocabulary, the details and the retry and correlation parts of every error, and no longer be one error type), publishing webhook outcomes only from the adapter (246 bytes, but custom observers would hear nothing); both together still about 7050-7100. Users keep clear errors; the Worker's code is held to the 6.5 KB",
  },
  "@promo-review/webhook-verify/signature": {
    reported: 5713,
    why: "lowered from 5759 to what it measures (issue 34 item 5 on h-verify34c: 5710 on the tree before it, 5713 after, +3 for a delivery's headers checked for form in one place, header-values.ts, whichever reader read them). Before that: raised on purpose from 5711 (+48, issue 27: the a/an article of a body's kind in refusal messages, 'an object', from errors' kindOf); against 4 KB and standardwebhooks (4867 bytes): with every message taken out it is 4.36 KB, under standardwebhooks' 4.54 KB measured the same way, so what puts it over the peer is the wording that names the likely mistake (raw body, rotation, clock skew, env-file whitespace). What puts it over 4 KB is errors' typed base class (redaction of every string and of a replay store's cause, instanceof across copies), about 2 KB: a stand-alone error class measured 3808 bytes but would not be a PromoReviewError and would redact nothing a sender controls. one error type and secrets never visible win over the bar",
  },
  "browser: upload a File": {
    reported: 18205,
    why: "raised from 18201 (+4, errors classes an answer by its code through own keys only: a code named like an Object.prototype member threw). Raised from 18169 (+32, issue 34 item 3: `uploads.upload` and `uploads.waitForCompletion` declared beside the routes they send, as `CompositeOperation`s, instead of names typed at the call). 18169 on the merged tree (issue 34 item 3's routes +82 on h-ops34c-wip; http's browser User-Agent module -325 on h-slim34b, with the pipeline's small cuts there). Without messages 16752 against tus-js-client's 15055 without its own: the gap is behaviour. raised from 18430 (+82, issue 34 item 3 on h-ops34c-wip: the initiation, chunk PUT and status read sent from their declarations' routes, three plain route objects and http's sendRoute, instead of a hand-written method, template and name at each call; no schema, no valibot). against tus-js-client's 16312 bytes in the same run (issue 34 item 5); 18407 on h-upload34c, +23 on the merged tree from http's pipeline split into createHttpCore (the slim path's, without the hooks' and the logger's code) and createHttpClient, which adds them. By esbuild's metafile, of 52055 minified bytes: upload-chunker's own files 24.5 KB (the chunk loop 4.1 KB, resume-or-initiate 2.1, the web storage store 2.0, the run 2.0, the status wait 1.9), http's pipeline 14.4 KB (attempt 2.5, hooks and logger observer 1.8, client 1.7, poll 1.2, retry 1.1, body 1.1), errors 12.8 KB (the typed, redacting base class 2.3, the unexpected-response checks 2.0, redaction 1.7). The stream reader (`fromStream`) and the emitter (`startUpload`) are their own imports and not in it",
  },
  "@promo-review/upload-chunker": {
    reported: 20918,
    why: "raised from 20905 (+13, errors classes an answer by its code through own keys only: a code such as \"valueOf\" threw a TypeError and \"constructor\" gave a plain object). Raised from 20869 (+36, the upload's and the completion wait's composite declarations, see the File upload's row). 20869 on the merged tree (the routes +62, the browser User-Agent module and the pipeline's small cuts about -350). raised from 21154 (+62, issue 34 item 3 on h-ops34c-wip: requests sent from their declarations' routes, see the File upload's row). against tus-js-client's 16312 bytes in the same run (issue 34 item 5); 21132 on h-upload34c, +22 on the merged tree from http's createHttpCore/createHttpClient split. Its operation declarations and their valibot schemas are on `@promo-review/upload-chunker/operations`, not in this bundle. The whole package, 59900 minified bytes: the File upload's 52055 (see its row: upload-chunker's files, http's pipeline, errors) and what a File upload leaves out, `fromStream`'s stream reader 3.0 KB and `startUpload`'s eventemitter3 2.8 KB with its relay of the callbacks 0.8 KB. Without messages it is still over tus-js-client without its own: the gap is behaviour tus does not have (origin policy, redirect checks, body deadlines, checked answers, bounded resyncs, typed redacting errors, Web Locks)",
  },
  "@promo-review/sdk": {
    reported: 45820,
    why: "raised from 45805 (+15, errors classes an answer by its code through own keys only). Raised from 45778 (+27, link-capture's and upload-chunker's operations of several requests declared beside their routes). 45778 on the merged tree (41110 without messages, so over 35 KB by behaviour): the cuts of h-budget34 and h-flows34 below, http's browser User-Agent module and the pipeline's small cuts (h-slim34b, about -650), link-capture's and upload-chunker's routes (+82). over issue 34's 35 KB by the packages it assembles on one client (the facade's shape: uploads, links, promotions, reference data, webhooks, flows, batch, one budget). Each one's share, measured by leaving it out of `export *` (min+gzip, the shares overlap a little): upload-chunker 8.3 KB, promotions-core with valibot 7.7 KB, webhook-verify 5.9 KB, http 5.1 KB, rate-budget 4.1 KB (eventemitter3 0.9 KB of it, shared with the uploader), link-capture 2.7 KB, the batch runner 2.1 KB, the flows 1.2 KB, store 1.2 KB; errors and the facade's own wiring the rest. 41541 bytes without its messages. Lowered from 46428 (-183, issue 34 item 5 on h-budget34): rate-budget's wait queue is one array in admission order instead of a FIFO per priority (-106), and the budget finds a request's route, reports an unawaited store call's failure and publishes an acquisition each in one place (-48), and names its budgets from that route and tells an admission without a wait, a resend's too, in one call (-29); eventemitter3, kept as the emitter users subscribe to on the budget and on `startUpload`'s Upload, costs 1036 bytes here (measured by replacing it with a minimal on/off/emit listener list). Lowered before from 47384 (-478): rate-budget's kyHooks(budget), which the facade never calls, left the budget's class (-428); errors reads an error answer with its one capped loop (-45). Beside those, on h-flows34 (-54, with +6 for the composites' and the flows' declarations): the batch runner writes an item's records through one writer (-21), the client calls runDeclared without an alias (-16), the unconfigured webhook verifier shares its refusals (-13), the reference reads are made from their kinds (-10). Folding small repeated snippets into helpers was measured and left out where gzip grew (the flows' upload step +21, the webhook secret's list +19): what is left of the facade's own code is the flows' and the batch's behaviour, not copies",
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
 * verifies webhooks (through the Fetch entry and the main entry, the verifier alone, and the whole package), the
 * browser File upload and upload-chunker's whole package, promotions-core's whole package, the slim
 * path's creation, and the facade (the whole package, and `createClient` alone).
 */
export const WITHOUT_ADAPTER: SizeTarget[] = [
  WEBHOOK_WORKER,
  BROWSER_UPLOAD,
  whole("upload-chunker"),
  WEBHOOK_WORKER_MAIN_ENTRY,
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
