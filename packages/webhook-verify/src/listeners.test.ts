// Listeners of the full verifier, kept as an emitter keeps them (the verifier holds them itself, without
// an emitter library): in order added, a listener added twice runs twice, `off` removes every copy.
import { describe, expect, it } from "vitest";
import { NOW_MS, SECRET, sampleEvent } from "../test/support/fixtures.js";
import { createWebhookVerifier, type WebhookEvent } from "./index.js";

const event = { type: "evaluation-completed", ...sampleEvent() } as unknown as WebhookEvent;

function make() {
  return createWebhookVerifier({ webhookSecret: SECRET, now: () => NOW_MS });
}

describe("listeners run in the order added, awaited one after another", () => {
  it("runs each listener of the kind, a listener added twice twice, and no other kind's", async () => {
    const verifier = make();
    const calls: string[] = [];
    const twice = () => {
      calls.push("twice");
    };
    verifier.on("evaluation-completed", async () => {
      await Promise.resolve();
      calls.push("first");
    });
    verifier.on("evaluation-completed", twice).on("evaluation-completed", twice);
    verifier.on("promotion-archived", () => calls.push("other kind"));
    await verifier.dispatch(event);
    expect(calls).toEqual(["first", "twice", "twice"]);
  });

  it("a listener added during a dispatch runs from the next one", async () => {
    const verifier = make();
    const calls: string[] = [];
    verifier.on("evaluation-completed", () => {
      calls.push("first");
      verifier.on("evaluation-completed", () => calls.push("added"));
    });
    await verifier.dispatch(event);
    expect(calls).toEqual(["first"]);
  });
});

describe("off removes a listener, every copy of it, or the whole kind", () => {
  it("removes the given listener only, then every listener of the kind", async () => {
    const verifier = make();
    const calls: string[] = [];
    const removed = () => {
      calls.push("removed");
    };
    verifier.on("evaluation-completed", removed).on("evaluation-completed", () => calls.push("kept"));
    verifier.on("evaluation-completed", removed);
    verifier.off("evaluation-completed", removed);
    await verifier.dispatch(event);
    expect(calls).toEqual(["kept"]);
    verifier.off("evaluation-completed", () => {}).off("evaluation-completed");
    await verifier.dispatch(event);
    expect(calls).toEqual(["kept"]);
  });
});
