import { PromoReviewError, type PromoReviewErrorInit } from "./promo-review-error.js";

/** What a refused cross-origin request adds: the two origins that differ. */
export interface ForeignOriginErrorInit extends Omit<PromoReviewErrorInit, "code"> {
  /** The origin the request or redirect named (`scheme://host:port`). */
  origin: string;
  /** The configured service origin that credentials belong to. */
  expectedOrigin: string;
}

/**
 * `FOREIGN_ORIGIN`: a URL the service returned (a `statusUrl`, an `uploadUrl`, a redirect's
 * `Location`) names an origin other than the configured service's, and it is not trusted. Nothing
 * was sent there: credentials belong to their own origin only. If a deployment really serves that
 * origin, add it to the client's `trustedOrigins`.
 */
export class ForeignOriginError extends PromoReviewError {
  static override readonly kind: string = "ForeignOriginError";
  /** See {@link ForeignOriginErrorInit.origin}. */
  declare readonly origin: string;
  /** See {@link ForeignOriginErrorInit.expectedOrigin}. */
  declare readonly expectedOrigin: string;
  constructor(init: ForeignOriginErrorInit) {
    super({ ...init, code: "FOREIGN_ORIGIN" });
    this.origin = init.origin;
    this.expectedOrigin = init.expectedOrigin;
  }
}

/**
 * `REDIRECT_REFUSED`: a redirect the SDK does not follow although it stays on the service's origin:
 * too many hops, a method-changing redirect of a write (301/302/303 after a POST would turn it into
 * a GET), a write whose body cannot be sent twice (a stream), or a browser's opaque redirect whose
 * target cannot be checked. Nothing was re-sent.
 */
export class RedirectError extends PromoReviewError {
  static override readonly kind: string = "RedirectError";
}
