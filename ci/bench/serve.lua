-- wrk script for ci/bench-serve.sh: POST /api/v1/observations, one reading per request, unique
-- reading ids. Patient p<T>-<k> (T = wrk thread, k = 0..499) gets every 500th request of its thread;
-- every tenth patient is a blood-pressure patient alternating 185/95 (hypertensive crisis: an alert)
-- and 120/80 (re-arms the rule), the others send heart rate 60..89 (no alert).
local threads = {}
function setup(thread)
  thread:set("tid", #threads)
  table.insert(threads, thread)
end

local counter = 0
local base = 1704067200 -- 2024-01-01T00:00:00Z (device time; one reading per patient per second)
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

function request()
  local k = counter % 500
  local n = math.floor(counter / 500)
  counter = counter + 1
  local patient = "p" .. tid .. "-" .. k
  local ts = os.date("!%Y-%m-%dT%H:%M:%SZ", base + n)
  local body
  if k % 10 == 0 then
    local s, d = 120, 80
    if n % 2 == 0 then s, d = 185, 95 end
    body = string.format('{"readingId":"%s/%d","patientId":"%s","deviceId":"cuff","kind":"blood-pressure","systolic":%d,"diastolic":%d,"unit":"mm[Hg]","timestamp":"%s"}', patient, n, patient, s, d, ts)
  else
    body = string.format('{"readingId":"%s/%d","patientId":"%s","deviceId":"hr","kind":"heart-rate","value":%d,"unit":"/min","timestamp":"%s"}', patient, n, patient, 60 + (n % 30), ts)
  end
  return wrk.format(nil, "/api/v1/observations", nil, body)
end
