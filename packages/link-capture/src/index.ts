/**
 * Link capture for the Promotion Compliance Review service: generic screenshots, design-tool frames
 * and cloud-drive imports, with polling that can be saved and resumed.
 * @packageDocumentation
 */
export {
  type CaptureOptions,
  createLinkCapture,
  type LinkCapture,
  type LinkCaptureOptions,
} from "./capture.js";
export { explainCaptureError } from "./explain.js";
export {
  type DesignFrame,
  type DiscoverOptions,
  describeFrame,
  type FrameDiscovery,
  MAX_FRAME_PIXELS,
} from "./frames.js";
export { type LinkKind, linkKind, nodeIdOf, parseLink } from "./link-kind.js";
export { ImportPoll, type PollPacing } from "./poll.js";
export type {
  CaptureEvent,
  CaptureResponse,
  CaptureResult,
  FileFormat,
  ImportPollState,
  WaitOptions,
} from "./types.js";
