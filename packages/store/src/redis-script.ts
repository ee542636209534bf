import type { Decision, StoreWindow } from "./window.js";

/**
 * The one Lua script behind every budget decision in Redis. Running the check and the take of every window
 * in one script makes the decision atomic across processes: Redis runs scripts one at a time.
 * Time is Redis's `TIME`, so every process judges windows on one clock, whatever their own clocks say.
 *
 * Each window is a sorted set of admissions (member: a ticket unique across processes, score: the
 * time it counts from). Entries that left the window are removed first; the request fits when fewer
 * than `limit` remain, the same exact sliding-window rule as the memory store. Settling a ticket
 * moves its score to the moment its response arrived (the server counted it before that).
 *
 * KEYS[1] is the key's pause marker; KEYS[2..] the windows.
 * take:   ARGV = "take", member, ticketed (0|1), then limit, windowMs and holdMs per window. A ticket
 *         counts from now + holdMs until settled (the latest it may reach the server), a plain
 *         admission from now. Returns {1} when admitted, else
 *         {0, waitMs (string, ms with 3 decimals), paused (0|1), index of each full window (1-based)...}.
 * settle: ARGV = "settle", ticket, "1", then limit, windowMs and holdMs per window. Returns {1}.
 * forget: ARGV = "forget", member. Removes an admission whose take failed on the client's side (its
 *         deadline passed), in case the take still ran. Returns {1}.
 * pause:  ARGV = "pause", ms. Extends the pause to now + ms unless a later one is set. Returns {1}.
 */
export const BUDGET_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local stamp = string.format('%.3f', now)
local op = ARGV[1]
if op == 'settle' then
  for i = 2, #KEYS do
    local window = tonumber(ARGV[3 * i - 1])
    if redis.call('ZADD', KEYS[i], 'XX', stamp, ARGV[2]) then
      redis.call('PEXPIRE', KEYS[i], math.ceil(window) + 1)
    end
  end
  return {1}
end
if op == 'forget' then
  for i = 2, #KEYS do redis.call('ZREM', KEYS[i], ARGV[2]) end
  return {1}
end
local pausedUntil = tonumber(redis.call('GET', KEYS[1]) or '0')
if op == 'pause' then
  local ms = tonumber(ARGV[2])
  local untilMs = now + ms
  if untilMs > pausedUntil then
    redis.call('SET', KEYS[1], string.format('%.3f', untilMs), 'PX', math.ceil(ms) + 1)
  end
  return {1}
end
if pausedUntil > now then
  return {0, string.format('%.3f', pausedUntil - now), 1}
end
local wait = 0
local full = {}
for i = 2, #KEYS do
  local limit = tonumber(ARGV[3 * i - 2])
  local window = tonumber(ARGV[3 * i - 1])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', string.format('%.3f', now - window))
  local count = redis.call('ZCARD', KEYS[i])
  if count >= limit then
    local entry = redis.call('ZRANGE', KEYS[i], count - limit, count - limit, 'WITHSCORES')
    -- An unsettled ticket may be settled any moment (moved to now): never wait over a window.
    local leaves = math.min(tonumber(entry[2]) + window - now, window)
    full[#full + 1] = i - 1
    if leaves > wait then wait = leaves end
  end
end
if #full > 0 then
  local answer = {0, string.format('%.3f', wait), 0}
  for _, index in ipairs(full) do answer[#answer + 1] = index end
  return answer
end
for i = 2, #KEYS do
  local window = tonumber(ARGV[3 * i - 1])
  local hold = 0
  if ARGV[3] == '1' then hold = tonumber(ARGV[3 * i]) end
  redis.call('ZADD', KEYS[i], string.format('%.3f', now + hold), ARGV[2])
  redis.call('PEXPIRE', KEYS[i], math.ceil(window + hold) + 1)
end
return {1}
`;

/**
 * What the store sends while Redis is down, to learn when it is back: EVAL (no script to load after a
 * restart) with the key's first key, so that a Redis Cluster routes it to the node holding the key.
 */
export const PROBE_SCRIPT = "return 1";

/**
 * The keys of one budget script call for `key`: its pause marker, then each window's set. The hash
 * tag (`{key}`) keeps them in one Redis Cluster slot. Every store that runs the script (Redis,
 * Upstash) names them so, so stores on one database share the budget.
 */
export function budgetKeys(prefix: string, key: string, windows: readonly StoreWindow[]): string[] {
  const base = `${prefix}{${key}}:`;
  return [`${base}pause`, ...windows.map((w) => `${base}w:${w.id}`)];
}

/** The script's arguments: the operation's own (`head`), then limit, windowMs and holdMs per window. */
export function budgetArgs(head: (string | number)[], windows: readonly StoreWindow[]): (string | number)[] {
  const args = [...head];
  for (const w of windows) args.push(w.limit, w.windowMs, w.holdMs ?? 0);
  return args;
}

/**
 * The script's answer to a take as a {@link Decision}. Numbers may come as numbers or as the strings
 * the script wrote (a REST client parses some, not all).
 */
export function takeDecision(answer: unknown, windows: readonly StoreWindow[]): Decision {
  if (!Array.isArray(answer)) throw new Error(`unexpected answer from the budget script: ${String(answer)}`);
  if (Number(answer[0]) === 1) return { ok: true };
  return {
    ok: false,
    waitMs: Number(answer[1]),
    paused: Number(answer[2]) === 1,
    full: answer.slice(3).map((index) => windows[Number(index) - 1]!.id),
  };
}

/**
 * The compare-and-set of a value (`Store.swap`), one atomic step on Redis. KEYS[1] the value; ARGV[1]
 * "1" when a value is expected, ARGV[2] that value, ARGV[3] "1" to set (else delete), ARGV[4] the new
 * value, ARGV[5] its TTL in ms. Returns the value held before, behind ARGV[6] (a marker, so that an
 * empty string and nothing differ for every client), or false for nothing.
 */
export const SWAP_SCRIPT = `
local held = redis.call('GET', KEYS[1])
local same
if ARGV[1] == '1' then same = (held == ARGV[2]) else same = (held == false) end
if same then
  if ARGV[3] == '1' then redis.call('SET', KEYS[1], ARGV[4], 'PX', ARGV[5])
  elseif held then redis.call('DEL', KEYS[1]) end
end
if held then return ARGV[6] .. held end
return false
`;

/** The marker of {@link SWAP_SCRIPT}'s answer. */
export const SWAP_MARK = "=";

/** The arguments of {@link SWAP_SCRIPT}. */
export function swapArgs(expected: string | undefined, value: string | undefined, ttlMs: number): string[] {
  return [
    expected === undefined ? "0" : "1",
    expected ?? "",
    value === undefined ? "0" : "1",
    value ?? "",
    String(Math.max(1, Math.ceil(ttlMs))),
    SWAP_MARK,
  ];
}

/** The value {@link SWAP_SCRIPT} answered held before. */
export function swapAnswer(answer: unknown, where: string): string | undefined {
  if (answer === null || answer === undefined || answer === false) return undefined;
  if (typeof answer !== "string" || !answer.startsWith(SWAP_MARK))
    throw new Error(`unexpected answer from ${where} to a compare-and-set: ${String(answer)}`);
  return answer.slice(SWAP_MARK.length);
}
