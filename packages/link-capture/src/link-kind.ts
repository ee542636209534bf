/**
 * What kind of link a URL is, as far as the client can tell from its host and path. The service is the
 * judge (it answers 201 for a generic capture and 202 for an import); the client only needs the kind
 * to ask for a frame before sending a design-tool link, and to know that design frames are images.
 */
import { localValidationError } from "@promo-review/errors/internal";

/** A link's kind. */
export type LinkKind = "generic" | "design" | "drive";

const DESIGN_HOSTS = new Set(["figma.com", "www.figma.com"]);
const DRIVE_HOSTS = new Set([
  "drive.google.com",
  "docs.google.com",
  "onedrive.live.com",
  "1drv.ms",
  "www.dropbox.com",
  "dropbox.com",
]);

/** Parses a link, refusing anything but an absolute http(s) URL before it costs a request. */
export function parseLink(url: string): URL {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    throw localValidationError(
      [{ field: "url", message: "must be an absolute http(s) URL" }],
      "The link is invalid",
    );
  }
  return parsed;
}

/** Classifies a link: a design-tool file (`/file/` or `/design/`), a cloud-drive file, or anything else. */
export function linkKind(url: URL): LinkKind {
  const host = url.hostname.toLowerCase();
  if (DESIGN_HOSTS.has(host) && /^\/(file|design)\//.test(url.pathname)) return "design";
  if (DRIVE_HOSTS.has(host)) return "drive";
  return "generic";
}

/** The frame a design link names in its `node-id` query parameter, if any. */
export function nodeIdOf(url: URL): string | undefined {
  const nodeId = url.searchParams.get("node-id");
  return nodeId ? nodeId : undefined;
}
