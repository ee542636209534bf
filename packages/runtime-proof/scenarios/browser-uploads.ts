/**
 * `@promo-review/upload-chunker` in a page, as an app would use it: the file a user picked in the
 * page's `<input type=file>`, uploaded with `webStorageResumeStore()` (the real `localStorage` and
 * `navigator.locks`). Chromium only: the test reloads the page mid-upload, opens the page twice at
 * once, fills the storage to its quota or makes it refuse every call.
 */
import { createUploader, webStorageResumeStore } from "@promo-review/upload-chunker";
import { runtimeFingerprint, type ScenarioInput, type ScenarioOutput } from "./types.ts";

/** What the page's storage is made to do before the upload. */
type StorageMode = "as-is" | "full" | "refusing";

export async function run({ sim, correlationId, storage }: ScenarioInput): Promise<ScenarioOutput> {
  const mode = (storage ?? "as-is") as StorageMode;
  const filled = mode === "full" ? fillStorage() : 0;
  if (mode === "refusing") refuseStorage();
  const file = document.querySelector<HTMLInputElement>("input[type=file]")?.files?.[0];
  if (!file) throw new Error("the page has no picked file");
  const warnings: { message: string; code: unknown }[] = [];
  const quiet = () => {};
  const uploader = createUploader({
    filesUrl: sim.filesUrl,
    apiKey: sim.apiKey,
    externalUserId: sim.externalUserId,
    pollIntervalMs: 20,
    store: webStorageResumeStore(),
    logger: {
      debug: quiet,
      info: quiet,
      error: quiet,
      warn: (message, fields) => warnings.push({ message, code: fields?.["code"] }),
    },
  });
  const result = await uploader.upload(file, {
    correlationId: correlationId as string,
    contentType: "video/mp4",
  });
  return {
    runtime: runtimeFingerprint(),
    locks: typeof navigator.locks?.request === "function",
    uploadId: result.uploadId,
    status: result.status,
    fileSize: result.fileSize,
    resumedFrom: result.resumedFrom,
    warnings,
    filled,
  };
}

/** Fills `localStorage` until not even one more character fits; returns the characters written. */
function fillStorage(): number {
  let piece = "x".repeat(1 << 20);
  let written = 0;
  for (let i = 0; piece.length > 0; i++) {
    try {
      localStorage.setItem(`filler-${i}`, piece);
      written += piece.length;
    } catch {
      piece = piece.slice(0, piece.length >> 1);
    }
  }
  return written;
}

/** Every `localStorage` method throws, as in a private mode that refuses storage. */
function refuseStorage(): void {
  const refuse = () => {
    throw new DOMException("The operation is insecure.", "SecurityError");
  };
  for (const method of ["getItem", "setItem", "removeItem", "key", "clear"] as const) {
    Object.defineProperty(Storage.prototype, method, { value: refuse, configurable: true });
  }
}
