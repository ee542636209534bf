/**
 * `@promo-review/upload-chunker`: a 60 MiB payload (a stream, or a Blob) uploaded in chunks to the
 * simulator's file service. The test then compares the SHA-256 of the bytes the server stored with the
 * payload's.
 */
import {
  createUploader,
  fromStream,
  streamingByDefault,
  type UploadProgress,
} from "@promo-review/upload-chunker";
import { payloadBlob, payloadStream } from "./payload.ts";
import { runtimeFingerprint, type ScenarioInput, type ScenarioOutput } from "./types.ts";

export async function run({ sim, size, source, chunkSize }: ScenarioInput): Promise<ScenarioOutput> {
  const bytes = size as number;
  const uploader = createUploader({
    filesUrl: sim.filesUrl,
    apiKey: sim.apiKey,
    externalUserId: sim.externalUserId,
  });
  let reports = 0;
  let backwards = false;
  let last: UploadProgress | undefined;
  const payload = source === "blob" ? payloadBlob(bytes) : fromStream(payloadStream(bytes));
  const result = await uploader.upload(payload, {
    fileName: "runtime-proof.mp4",
    contentType: "video/mp4",
    size: bytes,
    ...(typeof chunkSize === "number" ? { chunkSize } : {}),
    onProgress: (progress) => {
      reports++;
      if (
        last &&
        (progress.bytesSent < last.bytesSent || progress.bytesAcknowledged < last.bytesAcknowledged)
      ) {
        backwards = true;
      }
      last = progress;
    },
  });
  return {
    runtime: runtimeFingerprint(),
    streamed: streamingByDefault(),
    uploadId: result.uploadId,
    status: result.status,
    fileSize: result.fileSize,
    retries: result.retries,
    progressReports: reports,
    progressWentBackwards: backwards,
    lastProgress: last ?? null,
  };
}
