/**
 * The one Lua script behind every Redis decision. Running the check and the take of every window
 * in one script makes the decision atomic across processes: Redis runs scripts one at a time.
 * Time is Redis's `TIME`, so every process judges windows on one clock, whatever their own clocks say.
 *
 * Each window is a list used as a ring buffer of its last `limit` admission times (newest first):
 * the request fits when the list is shorter than `limit` or its `limit`-th newest entry has left the
 * window, the same exact sliding-window rule as the memory store, O(1) per window.
 *
 * KEYS[1] is the key's pause marker; KEYS[2..] the windows.
 * take:  ARGV = "take", then limit and windowMs per window. Returns {1} when admitted, else
 *        {0, waitMs (string, ms with 3 decimals), paused (0|1), index of each full window (1-based)...}.
 * pause: ARGV = "pause", ms. Extends the pause to now + ms unless a later one is set. Returns {1}.
 */
export const BUDGET_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local pausedUntil = tonumber(redis.call('GET', KEYS[1]) or '0')
if ARGV[1] == 'pause' then
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
  local limit = tonumber(ARGV[2 * i - 2])
  local window = tonumber(ARGV[2 * i - 1])
  if redis.call('LLEN', KEYS[i]) >= limit then
    local oldest = tonumber(redis.call('LINDEX', KEYS[i], limit - 1))
    if oldest > now - window then
      full[#full + 1] = i - 1
      if oldest + window - now > wait then wait = oldest + window - now end
    end
  end
end
if #full > 0 then
  local answer = {0, string.format('%.3f', wait), 0}
  for _, index in ipairs(full) do answer[#answer + 1] = index end
  return answer
end
local stamp = string.format('%.3f', now)
for i = 2, #KEYS do
  local limit = tonumber(ARGV[2 * i - 2])
  local window = tonumber(ARGV[2 * i - 1])
  redis.call('LPUSH', KEYS[i], stamp)
  redis.call('LTRIM', KEYS[i], 0, limit - 1)
  redis.call('PEXPIRE', KEYS[i], math.ceil(window) + 1)
end
return {1}
`;
