/**
 * The main API's routes (everything under /v1 on the main port). Authentication, rate limiting and
 * the user headers are applied by the server before these run.
 */
import { readJsonObject } from "./body.js";
import { created, ok, type Route } from "./router.js";

/** The main API's routes. */
export const mainRoutes: Route[] = [
  {
    method: "POST",
    pattern: "/v1/promotions",
    handler: async ({ req, state }) => created(state.promotions.create(await readJsonObject(req))),
  },
  {
    method: "GET",
    pattern: "/v1/promotions/:promotionId",
    handler: ({ params, state }) => ok(state.promotions.view(params["promotionId"]!)),
  },
  {
    method: "POST",
    pattern: "/v1/promotions/:promotionId/versions",
    handler: async ({ req, params, state }) => {
      // Look the promotion up first: an unknown promotion is 404 whatever the body says.
      state.promotions.promotion(params["promotionId"]!);
      return created(state.promotions.addVersion(params["promotionId"]!, await readJsonObject(req)));
    },
  },
  {
    method: "POST",
    pattern: "/v1/promotions/:promotionId/versions/:versionId/submit",
    handler: async ({ req, params, state }) =>
      ok(state.promotions.submit(params["promotionId"]!, params["versionId"]!, await readJsonObject(req))),
  },
  {
    method: "GET",
    pattern: "/v1/promotions/:promotionId/versions/:versionId/decision",
    handler: ({ params, state }) =>
      ok({ ...state.promotions.decision(params["promotionId"]!, params["versionId"]!) }),
  },
  {
    method: "POST",
    pattern: "/v1/promotions/:promotionId/versions/:versionId/evaluate",
    handler: ({ params, state }) => {
      const { promotion, version } = state.promotions.version(params["promotionId"]!, params["versionId"]!);
      return { status: 202, body: state.evaluations.start(promotion, version) };
    },
  },
  {
    // Not in the spec ("endpoints for reading evaluation results: not shown"): the polling fallback
    // for callers without a webhook receiver. Recorded in docs/gaps.md.
    method: "GET",
    pattern: "/v1/promotions/:promotionId/versions/:versionId/evaluations/:evaluationId",
    handler: ({ params, state }) =>
      ok({ ...state.evaluations.get(params["promotionId"]!, params["versionId"]!, params["evaluationId"]!) }),
  },
  {
    // Not in the spec ("posting a comment reply: not shown"); the reply carries parentCommentId.
    method: "POST",
    pattern: "/v1/comments",
    handler: async ({ req, state }) => created(state.evaluations.reply(await readJsonObject(req))),
  },
  {
    method: "POST",
    pattern: "/v1/links",
    handler: async ({ req, state }) => state.links.capture(await readJsonObject(req)),
  },
  {
    method: "GET",
    pattern: "/v1/links/imports/:importId",
    handler: async ({ params, rawQuery, state }) => ok(await state.links.poll(params["importId"]!, rawQuery)),
  },
  {
    method: "POST",
    pattern: "/v1/links/design/frames",
    handler: async ({ req, state }) => ok({ ...state.links.frames(await readJsonObject(req)) }),
  },
  {
    method: "GET",
    pattern: "/v1/channels",
    handler: ({ state }) => ok({ channels: state.reference.channels }),
  },
  {
    method: "GET",
    pattern: "/v1/jurisdictions",
    handler: ({ state }) => ok({ jurisdictions: state.reference.jurisdictions }),
  },
  {
    method: "GET",
    pattern: "/v1/products",
    handler: ({ state }) => ok({ products: state.reference.products }),
  },
  {
    method: "GET",
    pattern: "/v1/target-markets",
    handler: ({ state }) => ok({ targetMarkets: state.reference.targetMarkets }),
  },
];
