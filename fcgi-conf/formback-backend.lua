-- Formback behind lighttpd: what lighttpd answers itself when a
-- formback.fcgi worker goes away mid-request (killed, crashed, respawning)
-- is a moment's unavailability, not a server fault.  lighttpd would say
-- 500 (or 502, 503, 504); this answers 503 with Retry-After and the JSON
-- envelope of errors/status-503.html beside this file, as formback.fcgi
-- itself answers when the database is away.  Answers of formback.fcgi
-- carry X-Request-Id and are left as they are.
--
-- mod_magnet (Debian: lighttpd-modules-lua), lighttpd 1.4.60 or later;
-- formback-lighttpd.conf attaches it with magnet.attract-response-start-to.
local r = lighty.r
if r.resp_header["X-Request-Id"] ~= nil then
  return 0
end
local st = r.req_item.http_status
if st == 500 or st == 502 or st == 503 or st == 504 then
  local dir = debug.getinfo(1, "S").source:match("^@?(.*)/[^/]*$") or "."
  r.resp_header["Retry-After"] = "5"
  r.resp_header["Content-Type"] = "application/json; charset=utf-8"
  r.resp_body:set({ { filename = dir .. "/errors/status-503.html" } })
  return 503
end
return 0
