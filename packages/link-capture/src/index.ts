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
export { type DesignFrame, type DiscoverOptions, type FrameDiscovery, MAX_FRAME_PIXELS } from "./frames.js";
export { ImportPoll, type PollPacing } from "./poll.js";
export type {
  CaptureEvent,
  CaptureResponse,
  CaptureResult,
  FileFormat,
  ImportPollState,
  WaitOptions,
} from "./types.js";
