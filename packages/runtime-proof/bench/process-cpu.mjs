// The CPU time of a process tree on Linux, read from /proc: what a browser and every process it started
// (renderers, the network service, utility processes) have used so far.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks a second, the unit of /proc/<pid>/stat's times (100 on Linux, asked once). */
const TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8", timeout: 10_000 })) || 100;
  } catch {
    return 100;
  }
})();

/** Every process's parent and CPU ticks, from /proc; undefined where there is no /proc. */
function processTable() {
  let names;
  try {
    names = readdirSync("/proc").filter((n) => /^\d+$/.test(n));
  } catch {
    return undefined;
  }
  const table = new Map();
  for (const name of names) {
    let stat;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // ended while the table was read
    }
    // The command name, in parentheses, may hold spaces: the fields are counted after its last ")".
    // From there: state, ppid, ... then utime, stime, cutime, cstime (fields 14 to 17 of stat).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    table.set(Number(name), { ppid: Number(fields[1]), ticks });
  }
  return table;
}

/** The pids whose parent is `pid`. */
export function childPids(pid) {
  const table = processTable();
  if (!table) return [];
  return [...table].filter(([, p]) => p.ppid === pid).map(([child]) => child);
}

/**
 * Seconds of CPU (user + system) that `root` and every process under it have used: the live ones'
 * own times, and the times of children that ended and were waited for (cutime, cstime of their
 * parent), so the sum only grows even as processes come and go. Undefined without /proc or `root`.
 */
export function treeCpuSeconds(root) {
  const table = processTable();
  if (!table || root === undefined || !table.has(root)) return undefined;
  const children = new Map();
  for (const [pid, { ppid }] of table) {
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(pid);
  }
  let ticks = 0;
  for (const queue = [root]; queue.length > 0; ) {
    const pid = queue.pop();
    ticks += table.get(pid).ticks;
    queue.push(...(children.get(pid) ?? []));
  }
  return ticks / TICKS;
}
