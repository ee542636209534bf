/**
 * Reading JSON request bodies with a size cap (a JSON body is never large; uploads stream instead).
 */
import type { IncomingMessage } from "node:http";
import { ApiError } from "./envelope.js";

/** Largest JSON body accepted. */
export const MAX_JSON_BODY = 1_048_576;

/**
 * Reads and parses a JSON object body. An empty body is `{}` (the submit body "may be empty"); a
 * body that is not a JSON object is INVALID_REQUEST.
 */
export async function readJsonObject(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_JSON_BODY) {
      throw new ApiError("PAYLOAD_TOO_LARGE", "JSON body too large", [
        { type: "constraint_violation", constraint: "max_body_size", limit: MAX_JSON_BODY, actual: size },
      ]);
    }
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (text === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ApiError("INVALID_REQUEST", "The request body is not valid JSON");
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ApiError("INVALID_REQUEST", "The request body must be a JSON object");
  }
  return parsed as Record<string, unknown>;
}
