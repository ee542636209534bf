/**
 * A manifest arrives as a stream of text (or bytes, decoded as UTF-8) in any runtime: a Web
 * `ReadableStream`, a Node stream, or any (async) iterable of chunks. These helpers walk it chunk by
 * chunk, so only the current chunk and one unfinished line are ever held.
 */

/** Where a manifest's text comes from: chunks of text or UTF-8 bytes. */
export type TextSource =
  | ReadableStream<string | Uint8Array>
  | AsyncIterable<string | Uint8Array>
  | Iterable<string | Uint8Array>;

/** The chunks of `source` as text. A Web stream is read through its reader (Safari's are not iterable). */
export async function* textChunks(source: TextSource): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const decode = (chunk: string | Uint8Array) =>
    typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
  if (isReadableStream(source)) {
    const reader = source.getReader();
    try {
      for (let step = await reader.read(); !step.done; step = await reader.read()) yield decode(step.value);
    } finally {
      reader.releaseLock();
    }
  } else {
    for await (const chunk of source) yield decode(chunk);
  }
  const rest = decoder.decode();
  if (rest !== "") yield rest;
}

function isReadableStream(source: TextSource): source is ReadableStream<string | Uint8Array> {
  return typeof (source as ReadableStream).getReader === "function";
}

/** One line of text and its number (from 1), without its line ending. */
export interface NumberedLine {
  line: number;
  text: string;
}

/** The lines of `source`, numbered; `\n` and `\r\n` both end a line, and a last line needs no ending. */
export async function* numberedLines(source: TextSource): AsyncGenerator<NumberedLine> {
  let pending = "";
  let line = 0;
  for await (const chunk of textChunks(source)) {
    pending += chunk;
    let end = pending.indexOf("\n");
    let start = 0;
    while (end !== -1) {
      line += 1;
      yield { line, text: withoutCarriageReturn(pending.slice(start, end)) };
      start = end + 1;
      end = pending.indexOf("\n", start);
    }
    pending = pending.slice(start);
  }
  if (pending !== "") yield { line: line + 1, text: withoutCarriageReturn(pending) };
}

const withoutCarriageReturn = (text: string) => (text.endsWith("\r") ? text.slice(0, -1) : text);
