/**
 * An upload that another process resumes, with `upstashStore` (Upstash over REST) keeping the resume
 * point. `phase: "start"` sends the payload until the service has acknowledged a chunk, then stops (as
 * a process that crashed or was scaled down); `phase: "resume"`, in another process, uploads the same
 * file and goes on from the service's offset instead of starting again.
 */
import { upstashStore } from "@promo-review/store/upstash";
import { createUploader } from "@promo-review/upload-chunker";
import { Redis } from "@upstash/redis";
import { payloadBlob } from "./payload.ts";
import { describeError, runtimeFingerprint, type ScenarioInput, type ScenarioOutput } from "./types.ts";

/** Which half of the upload this process does, and the store the processes share. */
export interface UpstashUploadInput extends ScenarioInput {
  upstash: { url: string; token: string; prefix: string };
  phase: "start" | "resume";
  size: number;
  chunkSize: number;
}

export async function run(input: ScenarioInput): Promise<ScenarioOutput> {
  const { sim, upstash, phase, size, chunkSize } = input as UpstashUploadInput;
  const redis = new Redis({ url: upstash.url, token: upstash.token, enableTelemetry: false });
  const uploader = createUploader({
    filesUrl: sim.filesUrl,
    apiKey: sim.apiKey,
    externalUserId: sim.externalUserId,
    // A generous deadline: this proves sharing on a loaded machine; the outage cases prove deadlines.
    store: upstashStore(redis, { prefixes: { value: upstash.prefix }, timeoutMs: 20_000 }),
  });
  const stop = new AbortController();
  const options = { fileName: "resumed-elsewhere.mp4", contentType: "video/mp4", size, chunkSize };
  if (phase === "start") {
    let acknowledged = 0;
    const error = await uploader
      .upload(payloadBlob(size), {
        ...options,
        signal: stop.signal,
        onProgress: (progress) => {
          acknowledged = progress.bytesAcknowledged;
          if (acknowledged >= chunkSize) stop.abort(new Error("this process stops here"));
        },
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    return {
      runtime: runtimeFingerprint(),
      stopped: error !== undefined,
      acknowledged,
      error: describeError(error),
    };
  }
  const result = await uploader.upload(payloadBlob(size), options);
  return {
    runtime: runtimeFingerprint(),
    uploadId: result.uploadId,
    status: result.status,
    resumedFrom: result.resumedFrom ?? null,
  };
}
