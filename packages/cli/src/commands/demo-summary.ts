/** What the demo did: the summary its steps add up to, as data (`--json`) and as people read it. */
import type { EvaluationOutcome } from "@promo-review/sdk";
import type { Simulator } from "@promo-review/simulator";
import { formatBytes } from "../progress.js";
import type { RequestCounts } from "../request-counter.js";
import { clientOf, type DemoRun, type DemoStep, FILE_NAME, linkOf, need } from "./demo-steps.js";

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
/** The main-API budget per key and minute, from the service's interface. */
const BUDGET_PER_MINUTE = 60;

/** How many requests the embedded simulator logged, per service. */
function simulatorLogOf(sim: Simulator): { main: number; files: number } {
  const log = sim.control.requests();
  return {
    main: log.filter((r) => r.service === "main").length,
    files: log.filter((r) => r.service === "files").length,
  };
}

/** What the steps produced, as the summary says it. */
export function summaryOf(run: DemoRun): DemoSummary {
  const upload = need(run, "upload");
  const capture = need(run, "capture");
  const created = need(run, "created");
  const latest = need(run, "latest");
  const submitted = need(run, "submitted");
  const decision = need(run, "decision");
  const evaluation = need(run, "evaluation");
  const fromWebApp = run.got.fromWebApp?.versionId;
  return {
    mode: run.embedded ? "embedded" : "service",
    baseUrl: clientOf(run).settings.baseUrl,
    steps: run.steps,
    upload: {
      uploadId: upload.response.uploadId,
      fileName: FILE_NAME,
      fileSize: upload.response.fileSize,
      chunks: upload.chunks,
      progressReports: upload.bar.reports,
    },
    capture: { url: linkOf(run), uploadId: capture.uploadId, fileFormat: capture.fileFormat },
    promotion: {
      promotionId: created.promotionId,
      publicId: created.publicId || undefined,
      tags: created.tags,
      metadata: created.metadata,
    },
    versions: {
      first: created.versionId,
      fromLink: need(run, "fromLink").versionId,
      fromWebApp: fromWebApp || undefined,
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
      decidedByUserId: decision.decidedByUserId || undefined,
      rationale: decision.rationale || undefined,
    },
    evaluation: {
      evaluationId: evaluation.evaluationId,
      status: evaluation.status,
      via: evaluation.via,
      verifiedWebhooks: run.verified.length,
      issues: evaluation.issues.map(({ severity, category, message }) => ({ severity, category, message })),
    },
    requests: {
      ...need(run, "connection").counter.counts,
      budgetPerMinute: BUDGET_PER_MINUTE,
      simulatorLog: run.sim && simulatorLogOf(run.sim),
    },
  };
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
