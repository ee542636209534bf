/**
 * Import graphs of modules, for the tests that forbid a circle: runtime-proof's `import-cycles.test.ts`
 * (the runtime graph of every package's built files) and rate-budget's `module-graph.test.ts` (its
 * source graph, type-only imports included).
 */

/** A graph of modules: each module's name to the names of the modules it imports. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/**
 * The first import cycle found by depth-first search, as a path of module names that starts and ends
 * on the same module; `undefined` when there is none. A name imported but absent from the graph's keys
 * (a module outside the graph) ends its path.
 */
export function findCycle(graph: ImportGraph): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const visit = (node: string, path: string[]): string[] | undefined => {
    if (state.get(node) === "done") return undefined;
    if (state.get(node) === "open") return [...path.slice(path.indexOf(node)), node];
    state.set(node, "open");
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next, [...path, node]);
      if (cycle) return cycle;
    }
    state.set(node, "done");
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node, []);
    if (cycle) return cycle;
  }
  return undefined;
}
