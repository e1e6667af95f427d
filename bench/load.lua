-- wrk script for npm run bench: POSTs a JSON body, optionally a different one per request (the
-- nonce spliced between BENCH_PREFIX and BENCH_SUFFIX, counting up from BENCH_NONCE_BASE), and
-- prints the result as one JSON line with latencies in microseconds.
local prefix = os.getenv('BENCH_PREFIX')
local suffix = os.getenv('BENCH_SUFFIX') or ''
-- 'hex64': a 32-byte ABI word; 'dec': a decimal string; 'fixed': the same body every time.
local format = os.getenv('BENCH_NONCE_FORMAT') or 'fixed'
local base = tonumber(os.getenv('BENCH_NONCE_BASE') or '0')
local n = 0
local fixed

wrk.method = 'POST'
wrk.headers['content-type'] = 'application/json'
local auth = os.getenv('BENCH_AUTHORIZATION')
if auth and auth ~= '' then wrk.headers['authorization'] = auth end

request = function()
  if format == 'fixed' then
    fixed = fixed or wrk.format(nil, nil, nil, prefix)
    return fixed
  end
  n = n + 1
  local nonce
  if format == 'hex64' then nonce = string.format('%064x', base + n) else nonce = string.format('%d', base + n) end
  return wrk.format(nil, nil, nil, prefix .. nonce .. suffix)
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"durationUs":%d,"errors":%d,"non2xx":%d,"p50Us":%d,"p90Us":%d,"p99Us":%d,"meanUs":%.1f,"maxUs":%d}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.mean, latency.max))
end
