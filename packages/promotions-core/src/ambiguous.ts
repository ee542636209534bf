/**
 * What a create call says when it got no answer. A POST that may have reached the service may have
 * created the promotion (or version), so the SDK never resends it; the error it throws says so, is
 * marked not retryable, and keeps the correlation id that was sent, so support can tell whether it
 * arrived.
 */
import { type PromoReviewError, TransportError, type TransportErrorInit } from "@promo-review/errors";

/**
 * Rewrites a transport failure that may have reached the server into one that names the consequence
 * (`what` may or may not exist). Any other error is returned unchanged.
 */
export function explainAmbiguous(error: unknown, what: string, correlationId: string): unknown {
  if (!(error instanceof TransportError) || !error.mayHaveReachedServer) return error;
  // An abort mid-request is as ambiguous as a broken connection: the class stays, the message explains.
  const Kind = error.constructor as new (init: TransportErrorInit) => TransportError;
  return new Kind({
    code: error.code,
    message:
      `${error.message}. ${what} may or may not exist: the request may have been processed, so it was not ` +
      "sent again. Check before creating it again, and quote the correlation id to support",
    correlationId: error.correlationId ?? correlationId,
    details: [...error.details],
    retryable: false,
    mayHaveReachedServer: true,
    cause: error,
    request: error.request,
  } satisfies TransportErrorInit) as PromoReviewError;
}
