// Verifies per second at 1 KB and 64 KB: this package (node:crypto and Web Crypto entries) beside
// standardwebhooks, svix and a bare createHmac + timingSafeEqual, all in the same run. Prints a
// markdown table and writes it to bench/results/webhook-verify.md at the repository root. Figures
// are printed, never asserted. Runs the built package (`pnpm bench` builds first).
import { createHmac, timingSafeEqual } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg } from "node:os";
import { join } from "node:path";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";
import { Bench } from "tinybench";
import * as web from "../dist/index.js";
import * as node from "../dist/index.node.js";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const TIME_MS = Number(process.env.BENCH_TIME_MS ?? 250);

/** An evaluation-completed body of about `size` bytes (issues added until it is reached). */
function payload(size) {
  const event = {
    type: "evaluation-completed",
    timestamp: new Date().toISOString(),
    data: {
      evaluationId: "3f1c0a8e-2b7d-4c55-9a61-0e9d2f4b7c10",
      promotionId: "8d2e6f10-4a3b-4c1d-9e8f-7a6b5c4d3e2f",
      versionId: "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
      status: "completed",
      issues: [],
      metadata: { crm: "42", campaign: "spring" },
    },
  };
  let body = JSON.stringify(event);
  for (let i = 0; body.length < size; i++) {
    event.data.issues.push({
      issueId: `issue-${i}`,
      commentId: `comment-${i}`,
      severity: ["high", "medium", "low"][i % 3],
      category: "risk_warning",
      message: "The risk warning is missing or not prominent — « Capital at risk »",
    });
    body = JSON.stringify(event);
  }
  return Buffer.from(body);
}

async function tasksFor(size) {
  const body = payload(size);
  const headers = await node.sign({ secrets: SECRET, body });
  const id = headers["webhook-id"];
  const timestamp = headers["webhook-timestamp"];
  const key = Buffer.from(SECRET.slice("whsec_".length), "base64");
  const options = { secrets: SECRET, replayStore: false };
  const nodeVerifier = node.createWebhookVerifier(options);
  const webVerifier = web.createWebhookVerifier(options);
  const standard = new StandardWebhook(SECRET);
  const svix = new SvixWebhook(SECRET);
  const input = { headers, body };
  // Every task must succeed: a benchmark of a failing path would measure the wrong thing.
  await nodeVerifier.verify(input);
  await webVerifier.verify(input);
  standard.verify(body, headers);
  svix.verify(body, headers);
  return {
    body,
    tasks: [
      [
        "bare createHmac + timingSafeEqual",
        () => {
          const signature = Buffer.from(headers["webhook-signature"].slice(3), "base64");
          const expected = createHmac("sha256", key).update(`${id}.${timestamp}.`).update(body).digest();
          if (!(signature.length === expected.length && timingSafeEqual(signature, expected)))
            throw new Error("mismatch");
        },
      ],
      ["webhook-verify, node:crypto, verifySignature", () => nodeVerifier.verifySignature(input)],
      ["webhook-verify, Web Crypto, verifySignature", () => webVerifier.verifySignature(input)],
      ["webhook-verify, node:crypto, verify (+ JSON + valibot)", () => nodeVerifier.verify(input)],
      ["webhook-verify, Web Crypto, verify (+ JSON + valibot)", () => webVerifier.verify(input)],
      ["standardwebhooks (verify, parses JSON)", () => standard.verify(body, headers)],
      ["svix (verify, no parsing)", () => svix.verify(body, headers)],
    ],
  };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const fmt = (n) => Math.round(n).toLocaleString("en-US");

const sections = [];
const summary = {};
for (const [label, size] of [
  ["1 KB", 1024],
  ["64 KB", 64 * 1024],
]) {
  const { body, tasks } = await tasksFor(size);
  // Several calls per sample, so that a 4 µs operation is not lost in timer resolution.
  const batch = size <= 1024 ? 50 : 2;
  const figures = new Map(tasks.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const bench = new Bench({ time: TIME_MS, warmupTime: 50 });
    // Alternate the order between rounds so that no task always runs first (or last).
    const ordered = round % 2 ? [...tasks].reverse() : tasks;
    for (const [name, fn] of ordered) {
      const sync = !name.startsWith("webhook-verify");
      bench.add(
        name,
        sync
          ? () => {
              for (let i = 0; i < batch; i++) fn();
            }
          : async () => {
              for (let i = 0; i < batch; i++) await fn();
            },
      );
    }
    await bench.run();
    for (const task of bench.tasks) figures.get(task.name).push((batch * 1000) / task.result.period);
  }
  const bare = figures.get(tasks[0][0]);
  const rows = tasks.map(([name]) => {
    const values = figures.get(name);
    // The ratio is taken within each round, then the median of those: a machine whose load drifts
    // between rounds moves both figures of a round together.
    const ratio = median(values.map((value, round) => value / bare[round]));
    summary[`${label} ${name}`] = ratio;
    return `| ${name} | ${fmt(median(values))} | ${fmt(Math.min(...values))} | ${fmt(Math.max(...values))} | ${ratio.toFixed(2)} |`;
  });
  sections.push(
    [
      `### ${label} payload (${body.length} bytes)`,
      "",
      "| verifier | median verifies/s | min | max | ratio to bare (median of rounds) |",
      "| --- | ---: | ---: | ---: | ---: |",
      ...rows,
    ].join("\n"),
  );
}

const bars = [
  ["node:crypto ≥ 0.75 × bare at 1 KB", summary["1 KB webhook-verify, node:crypto, verifySignature"] >= 0.75],
  [
    "node:crypto ≥ 0.75 × bare at 64 KB",
    summary["64 KB webhook-verify, node:crypto, verifySignature"] >= 0.75,
  ],
  [
    "Web Crypto ≥ standardwebhooks at 64 KB",
    summary["64 KB webhook-verify, Web Crypto, verifySignature"] >=
      summary["64 KB standardwebhooks (verify, parses JSON)"],
  ],
];

const report = [
  "# webhook-verify benchmark",
  "",
  `Node ${process.version}, ${cpus()[0]?.model ?? "unknown CPU"} (${availableParallelism()} threads), load average ${loadavg()[0].toFixed(1)} at start, ${new Date().toISOString()}.`,
  `${ROUNDS} rounds of ${TIME_MS} ms per task, tasks interleaved; median, min and max of the rounds' mean rates;`,
  "the ratio is the median of each round's ratio to the bare figure of the same round. Same headers",
  "(one `v1` signature, plain object as Node gives them) and the same Buffer body for every verifier;",
  "replay store off. `verifySignature` is headers + body + signature + timestamp, the work the bare",
  "figure and svix do; `verify` adds `JSON.parse` and the valibot schema, the work standardwebhooks' default adds.",
  "",
  ...sections.flatMap((s) => [s, ""]),
  "### Bars",
  "",
  ...bars.map(([name, ok]) => `- ${ok ? "met" : "NOT MET"}: ${name}`),
  "",
  "Command: `pnpm --filter @promo-review/webhook-verify bench` (or `pnpm bench` at the root).",
  "",
].join("\n");

console.log(report);
const root = join(import.meta.dirname, "..", "..", "..");
mkdirSync(join(root, "bench", "results"), { recursive: true });
writeFileSync(join(root, "bench", "results", "webhook-verify.md"), report);
