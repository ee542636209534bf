// One row of the webhook-verify benchmark, in a fresh process: `node row.mjs <task> <body> <warmupMs> <timeMs>`.
// Builds the task's inputs, warms it and the two bare rows up, then counts calls of each in alternating
// plain loops over this process's CPU time, and prints `{"<row>": <calls per CPU second>, ...}`. A fresh
// process per row means no row inherits another's heap, JIT state or garbage.
import { createHmac, timingSafeEqual } from "node:crypto";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";
import * as web from "../dist/index.js";
import * as node from "../dist/index.node.js";

export const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

/** The bodies: an evaluation-completed event grown with issues to about `size` bytes. */
export const BODIES = {
  "1 KB": { size: 1024, ascii: false },
  "64 KB, ASCII text": { size: 64 * 1024, ascii: true },
  "64 KB, non-ASCII text": { size: 64 * 1024, ascii: false },
};

/** The body of one kind, as the bytes a server receives. */
export function payload({ size, ascii }) {
  const message = ascii
    ? "The risk warning is missing or not prominent - 'Capital at risk'"
    : "The risk warning is missing or not prominent — « Capital at risk »";
  const event = {
    type: "evaluation-completed",
    timestamp: "2026-11-24T00:00:00.000Z",
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
      message,
    });
    body = JSON.stringify(event);
  }
  return Buffer.from(body);
}

/** The bare check: `createHmac` over the signed content and `timingSafeEqual` with the header's signature. */
function checkHmac({ key, headers, body }) {
  const signature = Buffer.from(headers["webhook-signature"].slice(3), "base64");
  const expected = createHmac("sha256", key)
    .update(`${headers["webhook-id"]}.${headers["webhook-timestamp"]}.`)
    .update(body)
    .digest();
  if (!(signature.length === expected.length && timingSafeEqual(signature, expected)))
    throw new Error("mismatch");
}

/** The baselines every row is measured beside, in the same process. */
export const BARE_ROWS = [
  "bare: createHmac + timingSafeEqual + JSON.parse",
  "bare: createHmac + timingSafeEqual (no parsing)",
];

/** The rows: a name, and a function of the signed delivery that makes the call (sync or async). */
export const TASKS = {
  // JSON.parse of the bytes as received: it reads them as UTF-8 text first, as every verifier must.
  "bare: createHmac + timingSafeEqual + JSON.parse": (delivery) => () => {
    checkHmac(delivery);
    return JSON.parse(delivery.body);
  },
  "bare: createHmac + timingSafeEqual (no parsing)": (delivery) => () => checkHmac(delivery),
  "webhook-verify, node:crypto, verifySignature": ({ input }) => {
    const verifier = node.createWebhookVerifier({ webhookSecret: SECRET, replayStore: false });
    return () => verifier.verifySignature(input);
  },
  "webhook-verify, node:crypto, verify": ({ input }) => {
    const verifier = node.createWebhookVerifier({ webhookSecret: SECRET, replayStore: false });
    return () => verifier.verify(input);
  },
  "webhook-verify, Web Crypto, verify": ({ input }) => {
    const verifier = web.createWebhookVerifier({ webhookSecret: SECRET, replayStore: false });
    return () => verifier.verify(input);
  },
  "standardwebhooks (verify, parses JSON)": ({ headers, body }) => {
    const verifier = new StandardWebhook(SECRET);
    return () => verifier.verify(body, headers);
  },
  "svix (verify, no parsing)": ({ headers, body }) => {
    const verifier = new SvixWebhook(SECRET);
    return () => verifier.verify(body, headers);
  },
};

/** This process's CPU time in ms (user + system, every thread). */
function cpuMs() {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Calls `call` in a plain loop for `ms` of CPU time; returns the calls made and the CPU ms spent. */
async function loop(call, isAsync, ms) {
  let calls = 0;
  const start = cpuMs();
  let spent = 0;
  while (spent < ms) {
    if (isAsync) for (let i = 0; i < 8; i++) await call();
    else for (let i = 0; i < 8; i++) call();
    calls += 8;
    spent = cpuMs() - start;
  }
  return { calls, spent };
}

/**
 * Measures `task` and the two bare rows in alternating slices of `sliceMs`, after `warmupMs` of each.
 * Time is CPU time, not the wall clock: on a shared machine the wall clock counts the time other
 * processes held the cores. Alternating slices in one process make each ratio immune to the load
 * changing between rows; the bare rows are a few lines of node:crypto and JSON.parse, so they leave
 * the task's JIT and heap as they were.
 */
async function run(task, bodyName, warmupMs, timeMs, sliceMs = 25) {
  const body = payload(BODIES[bodyName]);
  // Signed "now": standardwebhooks and svix check the timestamp against the real clock.
  const headers = await node.sign({ webhookSecret: SECRET, body });
  const delivery = {
    key: Buffer.from(SECRET.slice("whsec_".length), "base64"),
    headers,
    body,
    input: { headers, body },
  };
  const names = [task, ...BARE_ROWS.filter((name) => name !== task)];
  const calls = [];
  for (const name of names) {
    const call = TASKS[name](delivery);
    // Every row must succeed once: a benchmark of a failing path would measure the wrong thing.
    const first = call();
    const isAsync = first instanceof Promise;
    await first;
    calls.push({ name, call, isAsync, calls: 0, spent: 0 });
  }
  for (const entry of calls) await loop(entry.call, entry.isAsync, warmupMs);
  for (let done = 0; done < timeMs; done += sliceMs) {
    for (const entry of calls) {
      const slice = await loop(entry.call, entry.isAsync, sliceMs);
      entry.calls += slice.calls;
      entry.spent += slice.spent;
    }
  }
  return Object.fromEntries(calls.map((entry) => [entry.name, (entry.calls * 1000) / entry.spent]));
}

if (process.argv[1] === import.meta.filename) {
  const [task, bodyName, warmupMs, timeMs] = process.argv.slice(2);
  process.stdout.write(JSON.stringify(await run(task, bodyName, Number(warmupMs), Number(timeMs))));
}
