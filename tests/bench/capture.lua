-- wrk script: POST /tag/v1/events captures, a new visitor every request,
-- as the page tag sends them (text/plain, like navigator.sendBeacon).
local counter = 0
local site = os.getenv("FB_SITE_PK")
local thread_id = 0

setup = function(thread)
  thread:set("tid", thread_id)
  thread_id = thread_id + 1
end

request = function()
  counter = counter + 1
  local v = string.format("%08x-0000-4000-8000-%012d", tid or 0, counter)
  local body = '{"v":1,"site":"' .. site .. '","visitor":"' .. v ..
    '","session":"' .. v .. '","type":"capture","url":"http://127.0.0.1/form",' ..
    '"referrer":"","campaign":"bench","role":"form",' ..
    '"contact":{"tel":"0901' .. string.format("%07d", counter % 10000000) ..
    '","email":"v' .. counter .. '@bench.example"},"consent":true,"ts":1}'
  return wrk.format("POST", "/tag/v1/events", {["Content-Type"] = "text/plain"}, body)
end
