// The replay store's rules on a real Deno KV file, in one deno process; prints what it observed.
// deno run ... deno/replay-rules.ts <folder for KV files> <fast-check runs> [seed]
import { denoKvReplayStore } from "../src/deno.ts";
import { createWebhookVerifier, sign } from "../src/index.ts";
import { checkReplayProperty } from "../test/support/replay-property.ts";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

const [dir, runs, seed] = Deno.args;
let files = 0;
const open = () => Deno.openKv(`${dir}/rules-${files++}.sqlite`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const observed: Record<string, unknown> = {};

{
  // KV's expiry is only the earliest deletion: past it the entry is still there, and still claimable.
  const kv = await open();
  // Expiry is judged on the store's clock (moved by hand, so a loaded machine cannot expire a claim
  // early); KV's own expireIn runs on the real one.
  let now = Date.now();
  const store = denoKvReplayStore(kv, { prefix: ["rules"], now: () => now });
  observed.first = await store.claim("msg_1", 20);
  observed.again = await store.claim("msg_1", 60_000);
  await sleep(200);
  now += 200;
  observed.expiredEntryStillInKv = (await kv.get(["rules", "msg_1"])).versionstamp !== null;
  observed.afterExpiry = await store.claim("msg_1", 60_000);
  observed.whileHeld = await store.claim("msg_1", 60_000);
  await store.release("msg_1");
  observed.entryAfterRelease = (await kv.get(["rules", "msg_1"])).versionstamp;
  observed.afterRelease = await store.claim("msg_1", 60_000);

  // A receiver whose claim expired and was taken over does not delete the new claim on release.
  let clock = 0;
  const first = denoKvReplayStore(kv, { prefix: ["rules"], now: () => clock });
  const second = denoKvReplayStore(kv, { prefix: ["rules"], now: () => clock });
  observed.firstClaims = await first.claim("msg_2", 1_000);
  clock += 5_000;
  observed.secondTakesOver = await second.claim("msg_2", 60_000);
  await first.release("msg_2");
  observed.takenOverClaimKept = await first.claim("msg_2", 60_000);
  kv.close();
}

{
  // The default prefix, and two verifiers (two isolates) sharing one KV: a delivery is handled once.
  const kv = await open();
  const body = JSON.stringify({
    type: "evaluation-completed",
    timestamp: new Date().toISOString(),
    data: {},
  });
  const delivery = { headers: await sign({ webhookSecret: SECRET, body, id: "msg_deno_1" }), body };
  const verifiers = [0, 1].map(() =>
    createWebhookVerifier({ webhookSecret: SECRET, replayStore: denoKvReplayStore(kv), onWarning: () => {} }),
  );
  const outcomes = await Promise.allSettled(verifiers.map((v) => v.verify(delivery)));
  observed.verifierOutcomes = outcomes.map((o) =>
    o.status === "fulfilled" ? "verified" : (o.reason as { reason?: string }).reason,
  );
  observed.defaultKey = (await kv.list({ prefix: ["promo-review", "webhook-id"] }).next()).value?.key;
  kv.close();
}

const kvs: Deno.Kv[] = [];
await checkReplayProperty({
  numRuns: Number(runs),
  seed: seed === undefined ? undefined : Number(seed),
  openKv: async () => {
    const kv = await open();
    kvs.push(kv);
    return { kv, close: () => kv.close() };
  },
});
observed.propertyRuns = Number(runs);
console.log(JSON.stringify(observed));
