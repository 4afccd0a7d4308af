-- wrk script: POST /api/v1/suppressions, a new mobile number every
-- request (FB_API_KEY: a live key with suppressions:write).
local counter = 0
local key = os.getenv("FB_API_KEY")
local thread_id = 0

setup = function(thread)
  thread:set("tid", thread_id)
  thread_id = thread_id + 1
end

request = function()
  counter = counter + 1
  local body = string.format('{"value":"090%d%07d"}', 1 + (tid or 0), counter % 10000000)
  return wrk.format("POST", "/api/v1/suppressions",
    {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. key}, body)
end
