/**
 * One declared operation of this package, run through http's operation runner: published by the
 * package and, once answered, with the ids its result names. The standalone functions (`/slim`) and
 * `createPromotionsClient` run every operation through it.
 */
import {
  type OperationCall,
  type OperationResult,
  type RunnableDeclaration,
  runOperation,
} from "@promo-review/http";
import { idDetails, SOURCE } from "./observe.js";

/**
 * Runs `declared` on `http` with `call`, as this package's operation. A reply's own `commentId` is not
 * the comment replied to (which the operation already names), so it is not learnt from a result.
 */
export function runDeclared<T>(
  http: Parameters<typeof runOperation>[0],
  declared: RunnableDeclaration,
  call: OperationCall,
): Promise<OperationResult<T>> {
  return runOperation<RunnableDeclaration, T>(http, declared, {
    source: SOURCE,
    learnt: (result) => idDetails({ ...result, commentId: undefined }),
    ...call,
  });
}
