/**
 * Runs work for each of a stream of inputs, at most `concurrency` at once, and yields each result as
 * it finishes (not in input order). The input is pulled only when a slot is free, so a stream of
 * 10,000 items holds `concurrency` of them.
 */
export async function* pooled<I, O>(
  inputs: AsyncIterable<I> | Iterable<I>,
  concurrency: number,
  work: (input: I) => Promise<O>,
): AsyncGenerator<O> {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  }
  const running = new Map<number, Promise<{ id: number; result: O }>>();
  let next = 0;
  const settle = async () => {
    const { id, result } = await Promise.race(running.values());
    running.delete(id);
    return result;
  };
  for await (const input of inputs) {
    const id = next++;
    const started = work(input).then((result) => ({ id, result }));
    // A failure surfaces through the race; the others still running must not be unhandled.
    started.catch(() => undefined);
    running.set(id, started);
    if (running.size >= concurrency) yield await settle();
  }
  while (running.size > 0) yield await settle();
}
