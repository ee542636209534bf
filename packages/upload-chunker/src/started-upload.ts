/**
 * `startUpload`: an upload as a lifecycle object, for callers who listen to its events
 * (eventemitter3) or stop it with `abort()`. It is a layer over the uploader's `upload` and `resume`
 * and their callbacks, on its own import, so a bundle that only awaits `upload()` carries no emitter.
 */
import { errorFromTransport } from "@promo-review/errors/internal";
import { EventEmitter } from "eventemitter3";
import type { UploadEvents, UploadOptions, UploadProgress, UploadResponse, UploadSource } from "./types.js";
import type { Uploader } from "./uploader.js";

/** What `startUpload` needs of an uploader: an uploader, or the facade's `client.uploads`. */
export type UploadStarter = Pick<Uploader, "upload" | "resume">;

/**
 * An upload in progress. Listen with `on("progress", ...)`, await `done`, stop with `abort()` or the
 * `signal` given to `startUpload`. `done` rejects with an error from `@promo-review/errors`; once the
 * upload has an id, the error names it and the byte offset the service confirmed (`uploadStateOf(error)`).
 */
export class Upload extends EventEmitter<UploadEvents> {
  /** Settles when the upload completes (with its `$response`, see `UploadResponse`) or stops. */
  declare readonly done: Promise<UploadResponse>;
  readonly #controller = new AbortController();
  #uploadId: string | undefined;
  #progress: UploadProgress | undefined;

  /** Starts the upload at once; `startUpload(uploader, source, options)` says the same. */
  constructor(
    uploader: UploadStarter,
    source: UploadSource,
    options: UploadOptions & { uploadId?: string | undefined } = {},
  ) {
    super();
    const { signal, uploadId, ...rest } = options;
    const onAbort = () => this.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    // The caller's own callbacks first, then the listeners, as when they were listeners themselves.
    const told: UploadOptions = {
      ...rest,
      signal: this.#controller.signal,
      onInitiated: (event) => {
        this.#uploadId = event.uploadId;
        rest.onInitiated?.(event);
        this.emit("initiated", event);
      },
      onProgress: (progress) => {
        this.#progress = progress;
        rest.onProgress?.(progress);
        this.emit("progress", progress);
      },
      onChunk: (event) => {
        rest.onChunk?.(event);
        this.emit("chunk", event);
      },
      onRetry: (event) => {
        rest.onRetry?.(event);
        this.emit("retry", event);
      },
    };
    // Started on the next microtask so listeners attached right after `startUpload()` see every event.
    this.done = Promise.resolve()
      .then(() =>
        uploadId === undefined ? uploader.upload(source, told) : uploader.resume(uploadId, source, told),
      )
      .finally(() => signal?.removeEventListener("abort", onAbort));
    // `done` may be ignored by a caller that only listens to events; never an unhandled rejection.
    this.done.catch(() => {});
  }

  /** The upload id, once initiated (or given to resume). */
  get uploadId(): string | undefined {
    return this.#uploadId;
  }

  /** The latest progress report. */
  get progress(): UploadProgress | undefined {
    return this.#progress;
  }

  /** Stops the upload: the read, the chunk in flight and every wait end now; `done` rejects with an `AbortError`. */
  abort(reason?: unknown): void {
    if (this.#controller.signal.aborted) return;
    this.#controller.abort(reason ?? errorFromTransport(undefined, { aborted: true, sent: false }));
  }
}

/**
 * Like `uploader.upload` (or `uploader.resume` when `uploadId` is given), but returns the lifecycle
 * object at once: events `initiated`, `progress`, `chunk`, `retry`, the outcome in `done`, `abort()`.
 */
export function startUpload(
  uploader: UploadStarter,
  source: UploadSource,
  options?: UploadOptions & { uploadId?: string | undefined },
): Upload {
  return new Upload(uploader, source, options);
}
