/**
 * What every kind of source hands to a request body: pieces of at most {@link MAX_PIECE} bytes, and a
 * read failure turned into the typed `SOURCE_ERROR` it ends the upload with.
 */
import { PromoReviewError } from "@promo-review/errors";
import { localValidationError } from "@promo-review/errors/internal";

/** The largest piece handed to `fetch` at once; progress is counted per piece (see `progress.ts`). */
export const MAX_PIECE = 1024 * 1024;

/**
 * The bytes of an `ArrayBuffer` or of any view of one (typed array, `DataView`) as a `Uint8Array`
 * over the same memory (never a copy); `undefined` for anything else.
 */
export function bytesOf(value: unknown): Uint8Array | undefined {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return undefined;
}

/** Splits pieces larger than {@link MAX_PIECE} into views (never copies). */
export async function* bounded(
  pieces: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  for await (const piece of pieces) {
    for (let at = 0; at < piece.byteLength; at += MAX_PIECE) {
      yield piece.subarray(at, Math.min(piece.byteLength, at + MAX_PIECE));
    }
  }
}

/**
 * The typed error a source failure becomes: code `SOURCE_ERROR`, the original as `cause`. An error
 * already from `@promo-review/errors` (a size mismatch, an abort) is kept as it is.
 */
export function sourceFailure(error: unknown): PromoReviewError {
  if (error instanceof PromoReviewError) return error;
  const reason = (error as { message?: unknown })?.message ?? error;
  return new PromoReviewError({
    code: "SOURCE_ERROR",
    message: `The upload source could not be read: ${String(reason)}; nothing more was sent`,
    cause: error,
  });
}

/** The pieces of a range, with a read failure recorded (`onFailure`) and thrown typed. */
export async function* guarded(
  pieces: AsyncIterator<Uint8Array>,
  onFailure: (error: PromoReviewError) => PromoReviewError,
): AsyncGenerator<Uint8Array> {
  for (;;) {
    let step: IteratorResult<Uint8Array>;
    try {
      step = await pieces.next();
    } catch (error) {
      throw onFailure(sourceFailure(error));
    }
    if (step.done) return;
    yield step.value;
  }
}

/** The error for a source that is not of a kind the uploader reads, or that yields something else than bytes. */
export function unsupportedSource(message: string) {
  return localValidationError([{ field: "source", message }], "The upload source is not supported");
}
