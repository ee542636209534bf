/**
 * The lifecycle object of one upload: an event emitter (`initiated`, `progress`, `chunk`, `retry`)
 * with the outcome in `done` and `abort()` to stop it.
 */
import { errorFromTransport } from "@promo-review/errors/internal";
import { EventEmitter } from "eventemitter3";
import type { UploadProgress } from "./progress.js";
import type { UploadEvents, UploadResponse } from "./transfer.js";

/** Runs the upload with an emitter and the upload's own signal. */
export type UploadRunner = (
  emit: <E extends keyof UploadEvents>(event: E, ...args: UploadEvents[E]) => void,
  signal: AbortSignal,
) => Promise<UploadResponse>;

/**
 * An upload in progress. Listen with `on("progress", ...)`, await `done`, stop with `abort()` or the
 * `signal` given to `start`. `done` rejects with an error from `@promo-review/errors`; once the upload
 * has an id, the error names it and the byte offset the service confirmed (`uploadStateOf(error)`).
 */
export class Upload extends EventEmitter<UploadEvents> {
  /** Settles when the upload completes (with its `$response`, see `UploadResponse`) or stops. */
  readonly done: Promise<UploadResponse>;
  readonly #controller = new AbortController();
  #uploadId: string | undefined;
  #progress: UploadProgress | undefined;

  /** Starts `run` at once; use `uploader.start()` rather than this constructor. */
  constructor(run: UploadRunner, signal?: AbortSignal) {
    super();
    const onAbort = () => this.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    const emit = <E extends keyof UploadEvents>(event: E, ...args: UploadEvents[E]) => {
      if (event === "initiated") this.#uploadId = (args[0] as UploadEvents["initiated"][0]).uploadId;
      if (event === "progress") this.#progress = args[0] as UploadProgress;
      (this.emit as (event: E, ...args: UploadEvents[E]) => boolean)(event, ...args);
    };
    // Started on the next microtask so listeners attached right after `start()` see every event.
    this.done = Promise.resolve()
      .then(() => run(emit, this.#controller.signal))
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
