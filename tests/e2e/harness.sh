#!/bin/sh
# Browser test harness: a private MariaDB and lighttpd with formback.fcgi
# on loopback ports of its own, the demo shop in the document root, and
# headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core)
# as the visitors.  tests/e2e/run.mjs holds the steps and the checks;
# admin.mjs walks the admin UI; reference.mjs reads the API reference
# page, built here as `make reference` builds it and served by lighttpd
# through the shipped fragment.
set -eu
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
cd "$top_srcdir"
bld=$(cd "$top_builddir" && pwd)
. scripts/lib.sh

if [ ! -x /usr/bin/chromium ]; then
	echo "e2e: /usr/bin/chromium is missing (apt-get install chromium)" >&2
	echo "e2e: 0 passed, 1 failed"
	exit 1
fi
if [ ! -d tests/e2e/node_modules/playwright-core ] ||
    [ ! -d tests/e2e/node_modules/stripe ] ||
    [ ! -d tests/e2e/node_modules/standardwebhooks ] ||
    [ ! -d tests/e2e/node_modules/@redocly/cli ] ||
    [ ! -d tests/e2e/node_modules/axe-core ]; then
	(cd tests/e2e && npm ci --no-audit --no-fund --silent) || {
		echo "e2e: cannot install the packages of tests/e2e/package-lock.json from npm" >&2
		echo "e2e: 0 passed, 1 failed"
		exit 1
	}
fi

W=$(mktemp -d /tmp/fbe2e.XXXXXX)
cleanup() {
	fb_stack_stop "$W"
	fb_standins_stop "$W"
	if [ "${FB_KEEP:-0}" = 1 ]; then echo "kept $W" >&2; else rm -rf "$W"; fi
}
trap cleanup EXIT INT TERM
# the API reference page (issue 41), for the web server to serve as
# /docs/api (scripts/lib.sh copies FB_REFERENCE into the instance's share)
ref=0
if make -s -C "$bld" reference >"$W/reference.log" 2>&1; then
	export FB_REFERENCE="$bld/reference.html"
else
	cat "$W/reference.log"
	echo "openapi: 0 passed, 1 failed (make reference)"
	ref=1
fi
set -- $("$bld/tests/freeport" 5)
export FB_SMTP_URL="smtp://127.0.0.1:$3" FB_SMS_URL="http://127.0.0.1:$4/send"
fb_standins_start "$W" "$3" "$4"
# the shop's webhook receiver (a test deployment's exempt name)
fb_webhook_receiver_start "$W" "$5" hooks.e2e.test
export FB_WEBHOOK_CA_FILE="$W/hook.crt" FB_WEBHOOK_ALLOW_HOSTS=hooks.e2e.test \
    FB_WEBHOOK_RESOLVE="hooks.e2e.test:$5:127.0.0.1"
fb_stack_start "$W" "$1" "$2" 2 "$bld"
export FORMBACK_CONF="$W/formback.conf" FB_URL="http://127.0.0.1:$2" \
    FB_CTL_DIR="$bld" FB_WWW="$W/www" FB_MAIL_DIR="$W/mail" FB_SMS_FILE="$W/sms.jsonl" \
    FB_HOOK_URL="https://hooks.e2e.test:$5/shop" FB_HOOK_FILE="$W/hooks.jsonl" \
    FB_STATE="$W/e2e-state.json"
rc=$ref
node tests/e2e/run.mjs || rc=1
# the admin UI, in the same stack (issue 17)
# its screenshots (every screen at 1440 and 390 px) and axe-core's report
# are kept as artifacts in the build tree, git-ignored, replaced each run
shots=${FB_SHOTS:-$bld/tests/e2e/artifacts/admin}
rm -rf "$shots" && mkdir -p "$shots"
FB_SHOTS="$shots" node tests/e2e/admin.mjs || rc=1
# openapi.json as client generators read it (issue 18): Redocly's
# recommended rules, valid and without a warning
curl -s "$FB_URL/api/v1/openapi.json" >"$W/openapi.json"
if REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
    tests/e2e/node_modules/.bin/redocly lint --format=stylish "$W/openapi.json" \
    >"$W/lint.txt" 2>&1 && ! grep -Eq '^ *[0-9]+:[0-9]+ +(warning|error)|You have [0-9]+ warning' "$W/lint.txt"; then
	echo "openapi: 1 passed, 0 failed (redocly lint, recommended rules, no warning)"
else
	cat "$W/lint.txt"
	echo "openapi: 0 passed, 1 failed"
	rc=1
fi
# the reference page rendered from it, as the web server serves it
[ -z "${FB_REFERENCE:-}" ] || node tests/e2e/reference.mjs || rc=1
exit $rc
