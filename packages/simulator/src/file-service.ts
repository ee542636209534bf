/**
 * The file service's routes (on the files port). Not rate limited: the spec says so for chunk PUT and
 * upload status, and the simulator extends it to initiation (recorded in docs/gaps.md).
 */
import { readJsonObject } from "./body.js";
import { created, ok, type Route } from "./router.js";

/** The file service's routes. */
export const fileRoutes: Route[] = [
  {
    method: "POST",
    pattern: "/v1/uploads",
    handler: async ({ req, state }) => {
      const upload = await state.uploads.initiate(await readJsonObject(req));
      return created({
        uploadId: upload.uploadId,
        uploadUrl: `/v1/uploads/${upload.uploadId}`,
        maxChunkSize: state.uploads.maxChunkSize,
      });
    },
  },
  {
    method: "PUT",
    pattern: "/v1/uploads/:uploadId",
    handler: async ({ req, params, state }) => ok(await state.uploads.putChunk(req, params["uploadId"]!)),
  },
  {
    method: "GET",
    pattern: "/v1/uploads/:uploadId",
    handler: ({ params, state }) => ok({ ...state.uploads.view(params["uploadId"]!) }),
  },
];
