#!lua name=txtfp_store_1
-- Server-side functions of the Redis Cluster store (see cluster/mod.rs for
-- the key layout and the protocol). Loaded on every master with
-- FUNCTION LOAD REPLACE; the library name carries the protocol version.
--
-- Numbers cross as decimal strings. Member lists are packed big-endian
-- records sorted by document number (the first 8 bytes of a record).
-- Lua compares strings with strcoll, so document numbers are decoded to
-- numbers (exact below 2^53) rather than compared as bytes.

local function docno(s, i)
  local b1, b2, b3, b4, b5, b6, b7, b8 = string.byte(s, i, i + 7)
  return ((((((b1 * 256 + b2) * 256 + b3) * 256 + b4) * 256 + b5) * 256 + b6) * 256 + b7) * 256 + b8
end

local function fmt(n)
  return string.format('%d', n)
end

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- (A literal: the load-time sandbox has no `string` library.)
local NO_OWNER = '\0\0\0\0\0\0\0\0\0\0\0\0'

-- Reads fields of hash `g` with one HMGET per 1,000 (Lua's unpack limit);
-- false for a missing field.
local function hmget(g, fields)
  local out = {}
  for i = 1, #fields, 1000 do
    local part = redis.call('HMGET', g, unpack(fields, i, math.min(i + 999, #fields)))
    for k = 1, #part do
      out[i + k - 1] = part[k]
    end
  end
  return out
end

-- Writes `changed` (field -> value) with one HSET per 500 pairs.
local function hset(g, changed)
  local flat = {}
  for f, v in pairs(changed) do
    flat[#flat + 1] = f
    flat[#flat + 1] = v
    if #flat >= 1000 then
      redis.call('HSET', g, unpack(flat))
      flat = {}
    end
  end
  if #flat > 0 then
    redis.call('HSET', g, unpack(flat))
  end
end

-- KEYS[1]: a group hash. ARGV: batch start `a`, most members kept per key,
-- then pairs (field, member). A chunk field ('c...') holds a marker,
-- created with the member (an 8-byte number) as its first holder; the
-- answer is the marker as it was. Any other field holds a member list of
-- 8-byte numbers, or for SimHash fields ('s...') 16-byte (number,
-- SimHash) records; the
-- answer is its members numbered below `a` (sorted, so a prefix), and the
-- member is inserted in order unless present or the list is full. The
-- reply lists (pair index, answer) for the answers that are not empty.
-- Repeating a call changes nothing more (a retry after a lost reply is
-- safe). One HMGET and one HSET for the whole call: a call from Lua costs
-- more than the work.
local function append(keys, args)
  local g = keys[1]
  local a = tonumber(args[1])
  local cap = tonumber(args[2])
  local fields = {}
  for i = 3, #args, 2 do
    fields[#fields + 1] = args[i]
  end
  local vals = hmget(g, fields)
  local changed = {}
  local out = {}
  local function answer(t, v)
    if v ~= '' then
      out[#out + 1] = t
      out[#out + 1] = v
    end
  end
  for t = 1, #fields do
    local i = 1 + 2 * t
    local field, m = args[i], args[i + 1]
    local v = changed[field]
    if v == nil then
      v = vals[t] or ''
    end
    local kind = string.byte(field, 1)
    if kind == 99 then -- 'c'
      if v == '' then
        changed[field] = m .. NO_OWNER
      end
      answer(t, v)
    else
      local w = (kind == 115) and 16 or 8 -- 's': (number, SimHash)
      local len = #v
      local me = docno(m, 1)
      if len == 0 then
        changed[field] = m
      elseif docno(v, len - w + 1) < math.min(a, me) then
        -- The usual case: every stored member is older.
        answer(t, v)
        if len < cap * w then
          changed[field] = v .. m
        end
      else
        local k = 1
        while k <= len and docno(v, k) < a do
          k = k + w
        end
        answer(t, string.sub(v, 1, k - 1))
        local j = k
        while j <= len and docno(v, j) < me do
          j = j + w
        end
        if (j > len or docno(v, j) ~= me) and len < cap * w then
          changed[field] = string.sub(v, 1, j - 1) .. m .. string.sub(v, j)
        end
      end
    end
  end
  hset(g, changed)
  return out
end

-- KEYS[1]: a group hash. ARGV: batch start `a`, then triples (op, field,
-- payload) of a committed batch: E/X set the field; R removes the member
-- numbered payload (8 bytes) from a member list (of 16-byte records under
-- a SimHash field); O sets a chunk's owner (payload: number + chunk
-- id, 12 bytes); Z clears it. Fenced: a group applies each batch once and
-- in order (field '_a' holds the last batch applied), so several workers
-- may apply the same batch.
local function apply(keys, args)
  local g = keys[1]
  local a = tonumber(args[1])
  local done = tonumber(redis.call('HGET', g, '_a') or '0')
  if done >= a then
    return 0
  end
  -- Read every field an op edits (not those it only sets) in one go.
  local want, seen = {}, {}
  for i = 2, #args, 3 do
    local op, field = args[i], args[i + 1]
    if op ~= 'E' and op ~= 'X' and not seen[field] then
      seen[field] = true
      want[#want + 1] = field
    end
  end
  local cur = {}
  local got = hmget(g, want)
  for k = 1, #want do
    cur[want[k]] = got[k]
  end
  -- cur[field]: the value, or false when absent (or removed).
  local touched = {}
  for i = 2, #args, 3 do
    local op, field, p = args[i], args[i + 1], args[i + 2]
    touched[field] = true
    if op == 'E' or op == 'X' then
      cur[field] = p
    elseif op == 'R' then
      local v = cur[field]
      if v then
        local w = (string.byte(field, 1) == 115) and 16 or 8
        local me = docno(p, 1)
        local k = 1
        while k <= #v do
          local d = docno(v, k)
          if d == me then
            v = string.sub(v, 1, k - 1) .. string.sub(v, k + w)
            break
          elseif d > me then
            break
          end
          k = k + w
        end
        if #v == 0 then
          v = false
        end
        cur[field] = v
      end
    elseif op == 'O' then
      local v = cur[field]
      local first = v and string.sub(v, 1, 8) or string.sub(p, 1, 8)
      cur[field] = first .. p
    elseif op == 'Z' then
      local v = cur[field]
      if v then
        cur[field] = string.sub(v, 1, 8) .. NO_OWNER
      end
    end
  end
  local changed, gone = {}, {}
  for field in pairs(touched) do
    if cur[field] then
      changed[field] = cur[field]
    else
      gone[#gone + 1] = field
    end
  end
  changed['_a'] = fmt(a)
  hset(g, changed)
  for i = 1, #gone, 1000 do
    redis.call('HDEL', g, unpack(gone, i, math.min(i + 999, #gone)))
  end
  return 1
end

-- The control hash (KEYS[1]) holds the sequence ('seq'), the append and
-- decide watermarks ('A', 'D': every batch below has passed that phase),
-- and one lease per batch not yet decided: field 'L<a>' = "<end> <deadline
-- ms> <state>", state r (reserved), a (appended) or v (voided).

local function lease_get(ctl, a)
  local rec = redis.call('HGET', ctl, 'L' .. fmt(a))
  if not rec then
    return nil
  end
  local b, deadline, state = string.match(rec, '^(%d+) (%d+) (%a)$')
  return tonumber(b), tonumber(deadline), state
end

local function lease_set(ctl, a, b, deadline, state)
  redis.call('HSET', ctl, 'L' .. fmt(a), fmt(b) .. ' ' .. fmt(deadline) .. ' ' .. state)
end

local function init(ctl)
  if redis.call('HSETNX', ctl, 'seq', '1') == 1 then
    redis.call('HSET', ctl, 'A', '1', 'D', '1')
  end
end

-- reserve(ctl; n, lease ms, token) -> first number of a range of n. The
-- token makes a retried call return the same range.
local function reserve(keys, args)
  local ctl = keys[1]
  local n, lease, token = tonumber(args[1]), tonumber(args[2]), args[3]
  local seen = redis.call('HGET', ctl, 'T' .. token)
  if seen then
    return seen
  end
  init(ctl)
  local a = tonumber(redis.call('HGET', ctl, 'seq'))
  redis.call('HSET', ctl, 'seq', fmt(a + n))
  lease_set(ctl, a, a + n, now_ms() + lease, 'r')
  redis.call('HSET', ctl, 'T' .. token, fmt(a))
  redis.call('HSET', ctl, 'U' .. fmt(a), token)
  return fmt(a)
end

-- turn(ctl; a, phase 'A' or 'D', lease ms) -> 1 when batch `a` holds the
-- phase's watermark, 0 while an earlier batch does, -1 when `a` was voided.
-- Renews a's lease; voids the holder whose lease ran out (its owner
-- stopped) and moves the watermark past voided batches.
local function turn(keys, args)
  local ctl = keys[1]
  local a, phase, lease = tonumber(args[1]), args[2], tonumber(args[3])
  local now = now_ms()
  local b, _, state = lease_get(ctl, a)
  if not b or state == 'v' then
    return -1
  end
  lease_set(ctl, a, b, now + lease, state)
  local w = tonumber(redis.call('HGET', ctl, phase))
  while w < a do
    local wb, deadline, wstate = lease_get(ctl, w)
    if not wb then
      return redis.error_reply('txtfp store: no lease for batch ' .. fmt(w) .. ' below ' .. fmt(a))
    end
    if wstate == 'v' then
      if phase == 'D' then
        redis.call('HDEL', ctl, 'L' .. fmt(w), 'T' .. (redis.call('HGET', ctl, 'U' .. fmt(w)) or ''), 'U' .. fmt(w))
      end
      w = wb
    elseif phase == 'A' and wstate == 'a' then
      w = wb
    elseif now > deadline then
      lease_set(ctl, w, wb, 0, 'v')
    else
      break
    end
  end
  redis.call('HSET', ctl, phase, fmt(w))
  if w == a then
    return 1
  end
  return 0
end

-- appended(ctl; a, lease ms) -> 1 once batch `a` has appended (the append
-- watermark moves past it), 0 when it was voided.
local function appended(keys, args)
  local ctl = keys[1]
  local a, lease = tonumber(args[1]), tonumber(args[2])
  local b, _, state = lease_get(ctl, a)
  if not b or state == 'v' then
    return 0
  end
  if state == 'r' then
    if tonumber(redis.call('HGET', ctl, 'A')) ~= a then
      return 0
    end
    lease_set(ctl, a, b, now_ms() + lease, 'a')
    redis.call('HSET', ctl, 'A', fmt(b))
  end
  return 1
end

-- commit(ctl, counters, pending; a, result, then (counter, delta) pairs) ->
-- 1 when batch `a`'s result is recorded, its counters added and the
-- decide watermark moved past it (or that already happened), 0 when it
-- was voided.
local function commit(keys, args)
  local ctl, counters, pending = keys[1], keys[2], keys[3]
  local a = tonumber(args[1])
  if redis.call('HEXISTS', ctl, 'P' .. fmt(a)) == 1 then
    return 1
  end
  local b, _, state = lease_get(ctl, a)
  if not b or state ~= 'a' or tonumber(redis.call('HGET', ctl, 'D')) ~= a then
    return 0
  end
  redis.call('HSET', ctl, 'P' .. fmt(a), args[2])
  redis.call('ZADD', pending, a, fmt(a))
  for i = 3, #args, 2 do
    redis.call('HINCRBY', counters, args[i], args[i + 1])
  end
  local token = redis.call('HGET', ctl, 'U' .. fmt(a))
  if token then
    redis.call('HDEL', ctl, 'T' .. token, 'U' .. fmt(a))
  end
  redis.call('HDEL', ctl, 'L' .. fmt(a))
  redis.call('HSET', ctl, 'D', fmt(b))
  return 1
end

-- pending(ctl, pending; below) -> start, result, start, result, ... of the
-- committed batches below `below` not yet confirmed applied, in order.
local function pending(keys, args)
  local ctl, pend = keys[1], keys[2]
  local starts = redis.call('ZRANGEBYSCORE', pend, '-inf', '(' .. args[1])
  local out = {}
  for _, s in ipairs(starts) do
    out[#out + 1] = s
    out[#out + 1] = redis.call('HGET', ctl, 'P' .. s) or ''
  end
  return out
end

-- confirm(ctl, pending; a): batch `a`'s result is applied to every group.
local function confirm(keys, args)
  redis.call('ZREM', keys[2], args[1])
  redis.call('HDEL', keys[1], 'P' .. args[1])
  return 1
end

-- abandon(ctl; a): the owner gives batch `a` up (its decision failed).
local function abandon(keys, args)
  local ctl = keys[1]
  local a = tonumber(args[1])
  local b, _, state = lease_get(ctl, a)
  if b and state ~= 'v' then
    lease_set(ctl, a, b, 0, 'v')
  end
  return 1
end

redis.register_function('txtfp_append', append)
redis.register_function('txtfp_apply', apply)
redis.register_function('txtfp_reserve', reserve)
redis.register_function('txtfp_turn', turn)
redis.register_function('txtfp_appended', appended)
redis.register_function('txtfp_commit', commit)
redis.register_function('txtfp_pending', pending)
redis.register_function('txtfp_confirm', confirm)
redis.register_function('txtfp_abandon', abandon)
