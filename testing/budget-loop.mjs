// The loop of the processes that share one key's budget in the multi-process proofs (rate-budget's
// redis-worker.mjs over Redis and Redis Cluster, runtime-proof's upstash-budget scenario over Upstash
// in Node and edge-runtime): plain JavaScript, so a forked Node process and a bundled edge scenario
// both run it as it is. Types: budget-loop.d.mts.

/**
 * Sends `GET url` as fast as `budget` admits, from `concurrency` loops, until `deadline`: each
 * request takes a ticket, settled when its answer arrives (the server counted it before that
 * moment), and a 429 is taught to the budget. Answers how many answers were 200, 429 or other.
 */
export async function sendWhileAdmitted({ budget, url, headers, deadline, concurrency }) {
  const counts = { ok: 0, tooMany: 0, other: 0 };
  const loop = async () => {
    for (;;) {
      let ticket;
      try {
        ticket = await budget.acquire({ method: "GET", url }, { deadline, ticket: true });
      } catch (error) {
        if (error?.code === "BUDGET_DEADLINE") return;
        throw error;
      }
      const response = await fetch(url, { headers });
      ticket.settle();
      await response.arrayBuffer();
      if (response.status === 200) counts.ok++;
      else if (response.status === 429) {
        counts.tooMany++;
        await budget.learn(response);
      } else counts.other++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  return counts;
}
