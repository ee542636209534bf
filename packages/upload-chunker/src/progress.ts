/**
 * Progress of one upload: bytes handed to the transport (`bytesSent`) and bytes the file service
 * has confirmed (`bytesAcknowledged`). Both only ever grow: a chunk sent again after a failure counts
 * again only past the furthest byte sent before, and the server's word only moves the
 * acknowledgement forward.
 */
import type { UploadProgress } from "./types.js";

/**
 * Bytes sent between two reports at most. Pieces are at most `MAX_PIECE` (1 MiB) bytes; a report is
 * due once 1 MiB has been sent since the last one, and when a piece would take the figure further than
 * that, the figure before it is reported first: two reports are never more than 1 MiB apart. Every
 * acknowledged chunk is reported too, so small chunks report per chunk.
 */
export const REPORT_STEP = 1024 * 1024;

/** Tracks one upload's progress and decides when to report it. */
export interface ProgressTracker {
  /** The current figures. */
  readonly current: UploadProgress;
  /** An attempt has now sent its range up to the absolute offset `offset`. */
  sent(offset: number): void;
  /** The service confirmed `receivedBytes`. */
  acknowledged(receivedBytes: number): void;
  /** Reports now if anything changed since the last report. */
  flush(): void;
}

/** Creates a tracker that calls `report` with a fresh snapshot whenever figures are due. */
export function createProgressTracker(
  uploadId: string,
  totalBytes: number,
  startAt: number,
  report: (progress: UploadProgress) => void,
): ProgressTracker {
  const current: UploadProgress = { uploadId, bytesSent: startAt, bytesAcknowledged: startAt, totalBytes };
  let lastSent = startAt; // bytesSent in the last report, or where the upload started
  let lastAcknowledged = -1; // bytesAcknowledged in the last report; -1: nothing reported yet
  const emit = () => {
    lastSent = current.bytesSent;
    lastAcknowledged = current.bytesAcknowledged;
    report({ ...current });
  };
  return {
    current,
    sent(offset) {
      if (offset <= current.bytesSent) return;
      const to = Math.min(offset, totalBytes);
      if (to - lastSent > REPORT_STEP && current.bytesSent > lastSent) emit();
      current.bytesSent = to;
      if (to - lastSent >= REPORT_STEP) emit();
    },
    acknowledged(receivedBytes) {
      if (receivedBytes <= current.bytesAcknowledged) return;
      current.bytesAcknowledged = Math.min(receivedBytes, totalBytes);
      // Sent is never behind what the server holds (a resumed upload's bytes were sent earlier).
      if (current.bytesSent < current.bytesAcknowledged) current.bytesSent = current.bytesAcknowledged;
      emit();
    },
    flush() {
      if (
        lastAcknowledged < 0 ||
        lastSent !== current.bytesSent ||
        lastAcknowledged !== current.bytesAcknowledged
      )
        emit();
    },
  };
}
