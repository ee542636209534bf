/**
 * From JavaScript (no type checker) any value reaches an id or a URL argument. Each is checked
 * before anything is sent: a missing or malformed one is a local VALIDATION_ERROR, and the service
 * (a recording server here) receives nothing, whatever the operation and whichever its argument.
 */
import { inspect } from "node:util";
import { isPromoReviewError } from "@promo-review/errors";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HOSTILE_ID, type HostileServer, useHostileServers } from "../../../testing/hostile-server.ts";
import { type PromoReviewClient as Client, createClient } from "./index.js";

const start = useHostileServers();
const ok = HOSTILE_ID;
const file = () => new Uint8Array(10);
const fileOptions = { fileName: "a.pdf", contentType: "application/pdf" };
const link = "https://example.com/promo";
let keys = 0;

/** Every operation of every part that takes an id or a URL, with the position of each such argument. */
type Operation = {
  name: string;
  args: number;
  /** Positions that are optional options (undefined there means "not given", not "bad"). */
  optional?: number[];
  call: (client: Client, bad: unknown[]) => Promise<unknown>;
};
const any = (value: unknown) => value as string;

const OPERATIONS: Operation[] = [
  { name: "promotions.get", args: 1, call: (c, [a]) => c.promotions.get(any(a)) },
  {
    name: "promotions.createVersion",
    args: 1,
    call: (c, [a]) => c.promotions.createVersion(any(a), { fileFormat: "text", content: "x" }),
  },
  { name: "promotions.submit", args: 2, call: (c, [a, b]) => c.promotions.submit(any(a), any(b)) },
  { name: "promotions.decision", args: 2, call: (c, [a, b]) => c.promotions.decision(any(a), any(b)) },
  { name: "promotions.evaluate", args: 2, call: (c, [a, b]) => c.promotions.evaluate(any(a), any(b)) },
  {
    name: "promotions.evaluation",
    args: 3,
    call: (c, [a, b, d]) => c.promotions.evaluation(any(a), any(b), any(d)),
  },
  { name: "promotions.submitLatest", args: 1, call: (c, [a]) => c.promotions.submitLatest(any(a)) },
  { name: "promotions.decisionOfLatest", args: 1, call: (c, [a]) => c.promotions.decisionOfLatest(any(a)) },
  { name: "uploads.status", args: 1, call: (c, [a]) => c.uploads.status(any(a)) },
  { name: "uploads.waitForCompletion", args: 1, call: (c, [a]) => c.uploads.waitForCompletion(any(a)) },
  { name: "uploads.resume", args: 1, call: (c, [a]) => c.uploads.resume(any(a), file(), fileOptions) },
  { name: "links.capture", args: 1, call: (c, [a]) => c.links.capture(any(a)) },
  { name: "links.startImport", args: 1, call: (c, [a]) => c.links.startImport(any(a)) },
  { name: "links.discoverFrames", args: 1, call: (c, [a]) => c.links.discoverFrames(any(a)) },
  {
    name: "flows.addVersionFromFile",
    args: 1,
    call: (c, [a]) => c.flows.addVersionFromFile(any(a), file(), fileOptions),
  },
  {
    name: "flows.createFromLink",
    args: 1,
    call: (c, [a]) => c.flows.createFromLink(any(a), { promotion: { promotionName: "p" } as never }),
  },
  { name: "flows.submitLatestAndDecide", args: 1, call: (c, [a]) => c.flows.submitLatestAndDecide(any(a)) },
  {
    name: "flows.evaluateAndWait",
    args: 2,
    optional: [1],
    call: (c, [a, b]) => c.flows.evaluateAndWait(any(a), { versionId: any(b), timeoutMs: 5_000 }),
  },
];

/** The good value of each argument position: a URL for the links' and createFromLink's, else an id. */
const goodArgs = (op: Operation): unknown[] =>
  Array.from({ length: op.args }, () => (/links|FromLink/.test(op.name) ? link : ok));

/** Values that are no id: absent, of another type, empty, or strings that would reshape a path. */
const badValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    undefined,
    null,
    "",
    " ",
    0,
    42,
    Number.NaN,
    true,
    {},
    [],
    [ok],
    { toString: () => ok },
    "/",
    "..",
    "../..",
    "%2F",
    `${ok}/..`,
    `${ok}%2F..`,
    `../${ok}`,
    `${ok}/submit`,
    `${ok}?x=1`,
    `${ok}#x`,
    ` ${ok}`,
    `${ok}\n`,
    "not-a-uuid",
    ok.replace(/-/g, ""),
  ),
  fc.string().filter((s) => !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s)),
  fc.integer(),
  fc.object(),
);

async function setup(config: { validate?: boolean } = {}) {
  const [main, files] = await Promise.all([start(), start()]);
  const client = createClient({
    apiKey: `sk_test_sdk_ids_${++keys}_${Date.now()}`,
    externalUserId: "user-42",
    baseUrl: main.url,
    filesUrl: files.url,
    retry: false,
    timeoutMs: 5_000,
    env: {},
    ...config,
  });
  return { client, servers: [main, files] as HostileServer[] };
}

/** How the call ended: a synchronous throw is a defect too (callers chain `.catch`). */
async function outcome(run: () => Promise<unknown>): Promise<unknown> {
  let pending: Promise<unknown>;
  try {
    pending = run();
  } catch (error) {
    return { threwSynchronously: error };
  }
  return pending.then(
    (value) => ({ resolved: value }),
    (error: unknown) => error,
  );
}

/** What went wrong with one call, or nothing when it was refused locally and nothing was sent. */
async function refusalOf(run: () => Promise<unknown>, servers: HostileServer[]): Promise<string[]> {
  for (const server of servers) server.requests.length = 0;
  const error = await outcome(run);
  const sent = servers.flatMap((s) => s.requests.map((r) => `sent ${r.method} ${r.url}`));
  const code = isPromoReviewError(error) ? error.code : error;
  return [...(code === "VALIDATION_ERROR" ? [] : [`ended with ${inspect(code, { depth: 1 })}`]), ...sent];
}

/** Each position of each operation given `bad`, the others good: every way it was not refused locally. */
async function everyPosition(client: Client, servers: HostileServer[], bad: unknown): Promise<string[]> {
  const problems: string[] = [];
  for (const op of OPERATIONS) {
    for (let position = 0; position < op.args; position++) {
      if (bad === undefined && op.optional?.includes(position)) continue;
      const args = goodArgs(op);
      args[position] = bad as string;
      for (const problem of await refusalOf(() => op.call(client, args), servers)) {
        problems.push(`${op.name} argument ${position + 1}: ${problem}`);
      }
    }
  }
  return problems;
}

describe("a missing or malformed id or URL is refused locally: VALIDATION_ERROR, nothing sent", () => {
  it("every operation × every id or URL argument × any bad value", async () => {
    const { client, servers } = await setup();
    await fc.assert(
      fc.asyncProperty(
        fc
          .constantFrom(...OPERATIONS)
          .chain((op) =>
            fc
              .nat({ max: op.args - 1 })
              .chain((position) =>
                fc.tuple(
                  fc.constant(op),
                  fc.constant(position),
                  op.optional?.includes(position) ? badValue.filter((bad) => bad !== undefined) : badValue,
                ),
              ),
          ),
        async ([op, position, bad]) => {
          const args = goodArgs(op);
          args[position] = bad as string;
          expect(await refusalOf(() => op.call(client, args), servers)).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("each operation refuses undefined in each position (submit(id, undefined) sends no POST .../submit)", async () => {
    const { client, servers } = await setup();
    expect(await everyPosition(client, servers, undefined)).toEqual([]);
  });

  it("ids are checked even with validate: false (a path is never built from an unchecked id)", async () => {
    const { client, servers } = await setup({ validate: false });
    expect(await everyPosition(client, servers, `${ok}/..`)).toEqual([]);
  });
});
