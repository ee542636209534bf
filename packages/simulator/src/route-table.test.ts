import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, mainHeaders } from "../test/support/api.js";
import { type Simulator, serviceRoutes, startSimulator } from "./index.js";

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ seed: 34 });
});
afterAll(() => sim.close());

describe("The route table lists every route the services answer, as the spec writes paths", () => {
  it("names each route's service, method and {name} path template", () => {
    const routes = serviceRoutes();
    expect(routes).toContainEqual({ service: "main", method: "POST", path: "/v1/promotions" });
    expect(routes).toContainEqual({
      service: "main",
      method: "GET",
      path: "/v1/promotions/{promotionId}/versions/{versionId}/decision",
    });
    expect(routes).toContainEqual({ service: "files", method: "PUT", path: "/v1/uploads/{uploadId}" });
    expect(routes.every((r) => !r.path.includes(":"))).toBe(true);
  });

  it("every listed route is answered by its service, never as an unknown route", async () => {
    const id = "00000000-0000-4000-8000-000000000000";
    for (const route of serviceRoutes()) {
      const base = route.service === "main" ? sim.baseUrl : sim.filesUrl;
      const answer = await call(`${base}${route.path.replace(/\{[A-Za-z]+\}/g, id)}`, {
        method: route.method,
        headers: mainHeaders(sim),
        ...(route.method === "GET" ? {} : { body: "{}" }),
      });
      expect(String(answer.body?.error?.message ?? ""), `${route.method} ${route.path}`).not.toMatch(
        /^No route/,
      );
    }
  });
});
