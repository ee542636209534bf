// Writes promo-review.openapi.json from the built declarations (run through `pnpm generate`, which
// builds first). The drift test (src/document-file.test.ts) fails until this has been run after a change.
import { readFile, writeFile } from "node:fs/promises";
import { DOCUMENT_FILE, promoReviewDocument, renderDocument } from "../dist/index.js";

const gaps = await readFile(new URL("../../../docs/gaps.md", import.meta.url), "utf8");
await writeFile(new URL(`../${DOCUMENT_FILE}`, import.meta.url), renderDocument(promoReviewDocument(gaps)));
console.log(`wrote packages/openapi/${DOCUMENT_FILE}`);
