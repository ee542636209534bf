// The simulator's API as the webhook tests call it: the public routes and its `/_sim` control routes.
import type { Simulator } from "@promo-review/simulator";

/** One JSON call to `sim` with its key and user; the answer's status and parsed body. */
export async function simCall(
  sim: Simulator,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${sim.baseUrl}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${sim.apiKey}`,
      "X-External-User-ID": sim.externalUserId,
      "Content-Type": "application/json",
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
