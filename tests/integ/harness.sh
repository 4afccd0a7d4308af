#!/bin/sh
# Integration-test harness: starts a private MariaDB and lighttpd running
# formback.fcgi (two pre-forked workers) on loopback ports the kernel
# picks, runs the criterion suite against them, and stops both.
set -eu
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
cd "$top_srcdir"
src=$(pwd)
bld=$(cd "$top_builddir" && pwd)
. "$src/scripts/lib.sh"

W=$(mktemp -d /tmp/fbtest.XXXXXX)
cleanup() {
	fb_http_stop "$W/tls" 2>/dev/null || :
	fb_stack_stop "$W"
	fb_standins_stop "$W"
	if [ "${FB_KEEP:-0}" = 1 ]; then echo "kept $W" >&2; else rm -rf "$W"; fi
}
trap cleanup EXIT INT TERM

set -- $("$bld/tests/freeport" 6)
dbport=$1 httpport=$2 smtpport=$3 smsport=$4 hookport=$5 twilioport=$6
export FB_SMTP_URL="smtp://127.0.0.1:$smtpport" FB_SMS_URL="http://127.0.0.1:$smsport/send"
# each start says what did not come up (a busy machine: make -j2 check)
fail() { echo "harness: $* (FB_KEEP=1 keeps $W)" >&2; exit 1; }
fb_standins_start "$W" "$smtpport" "$smsport" ||
    fail "the SMTP and SMS stand-ins did not start: $(cat "$W/standins.err")"
# Twilio (issue 44): the web server verifies its callbacks with this
# token; the stand-in runs only when the deliver suite may (the tests of
# tests/integ/test_deliver.c send through it with a copy of the conf)
export FB_TWILIO_SID=AC00000000000000000000000000000044
export FB_TWILIO_TOKEN=stand-in-twilio-token
export FB_TWILIO_URL="http://127.0.0.1:$twilioport" FB_TWILIO_FILE="$W/twilio.jsonl"
case "${FB_TEST_FILTER:-}${FB_SUITES:-}" in
''|*deliver*) fb_twilio_start "$W" "$twilioport" ;;
esac
# webhooks (tests/integ/test_webhooks.c): the receiver answers for
# hooks.formback.test, exempt from the address rule as a test deployment
# would list it; the other names resolve through the test-only resolver
fb_webhook_receiver_start "$W" "$hookport" hooks.formback.test,rebind.formback.test ||
    fail "the webhook receiver did not start: $(cat "$W/standins.err")"
export FB_WEBHOOK_CA_FILE="$W/hook.crt" FB_WEBHOOK_ALLOW_HOSTS=hooks.formback.test
export FB_WEBHOOK_RESOLVE="hooks.formback.test:$hookport:127.0.0.1,\
rebind.formback.test:$hookport:93.184.216.34,public.formback.test:443:93.184.216.34,\
inside.formback.test:443:10.1.2.3,loop6.formback.test:443:[::1]"
export FB_HOOK_PORT=$hookport FB_HOOK_FILE="$W/hooks.jsonl"
# the collector's abuse limits (issues 11, 40): every test's captures come
# from 127.0.0.1 (network 127.0.0.0/24); tests/integ/test_flood.c floods
# past these from other loopback addresses, each limit below the next so
# that a flood from one address or one /24 trips its own
export FB_TAG_CAPTURES_PER_HOUR=400 FB_TAG_NETWORK_CAPTURES_PER_HOUR=600
export FB_SITE_NEW_LEADS_FLOOR=1000
# the binaries under test: the build's, or with FB_INSTALLED (a prefix)
# the installed ones (scripts/check: the Debian package's, /usr)
sbin=$bld
[ -z "${FB_INSTALLED:-}" ] || sbin=$FB_INSTALLED/sbin
fb_stack_start "$W" "$dbport" "$httpport" 2 "$sbin" ||
    fail "MariaDB or the web server did not start"
export FORMBACK_CONF="$W/formback.conf"
# behind lighttpd, the same service under https as well (FB_TLS_URL, its
# certificate FB_TLS_CA): tests/integ/test_sessions.c's https tests
if [ "${FB_HTTPD:-lighttpd}" = lighttpd ]; then
	tlsport=$("$bld/tests/freeport" 1)
	fb_tls_start "$W" "$tlsport" "$sbin" ||
	    fail "the https instance did not start"
	export FB_TLS_URL="https://127.0.0.1:$tlsport" FB_TLS_CA="$W/tls/ca.pem"
fi

export FB_TEST_URL="http://127.0.0.1:$httpport"
export FB_CTL="$sbin/formbackctl"
export FB_CTL_DIR="$sbin"
export FB_DB_SOCKET="$W/mysql.sock" FB_DB_PORT=$dbport FB_SRC="$src"
export FB_MIGRATIONS="$(fb_migrations)"
export FB_LOG="$W/httpd.err"
export FB_MAIL_DIR="$W/mail" FB_SMS_FILE="$W/sms.jsonl"
export FB_RESP_LOG="$W/responses.jsonl"
set +e
# FB_SUITES (space-separated suite names; all unless set) narrows the run
# to those suites: the Apache passes run the suites whose subject is the
# web server's part (tests/integ/apache.sh); FB_SKIP_SUITES leaves those
# out (make check runs the lighttpd pass in two halves side by side,
# tests/integ/lighttpd.sh and lighttpd-cron.sh).  FB_SHUFFLE is the seed
# of the shuffled order, the day's date unless set; 0 runs the suites in
# order, in one process, as a filter (FB_TEST_FILTER) does.
FB_SHUFFLE=${FB_SHUFFLE:-$(date +%Y%m%d)}
suites=$("$bld/tests/integ/integ" --list 2>&1 | awk -v only="${FB_SUITES:-}" \
    -v skip="${FB_SKIP_SUITES:-}" '
    BEGIN { n = split(only, s, " "); for (i = 1; i <= n; i++) want[s[i]] = 1
	m = split(skip, k, " "); for (i = 1; i <= m; i++) unwanted[k[i]] = 1 }
    /^[a-z_]+: [0-9]+ tests?$/ { sub(":", "", $1)
	if ((n == 0 || $1 in want) && !($1 in unwanted)) print $1 }' |
    paste -s -d '|')
if [ "$FB_SHUFFLE" != 0 ] && [ -z "${FB_TEST_FILTER:-}" ]; then
	# every test alone in its own process, in an order drawn from the
	# seed FB_SHUFFLE (issue 18: no test leans on another's leftovers
	# or order); one Synthesis line each
	echo "shuffled with seed $FB_SHUFFLE${suites:+, suites $suites}"
	rc=0
	for t in $("$bld/tests/integ/integ" --list 2>&1 | awk -v only="$suites" '
	    BEGIN { n = split(only, s, "|"); for (i = 1; i <= n; i++) want[s[i]] = 1 }
	    /^[a-z_]+: [0-9]+ tests?$/ { suite = $1; sub(":", "", suite); next }
	    { name = $NF; if (name != "" && suite in want) print suite "/" name }' |
	    awk -v seed="$FB_SHUFFLE" 'BEGIN { srand(seed) } { print rand() "\t" $0 }' |
	    sort -n | cut -f 2); do
		"$bld/tests/integ/integ" --jobs 1 --filter "$t" && continue
		rc=1
		# the server's complaints of the moment, beside the failure
		# (scripts/check repeats both at the end of its output)
		tail -n 300 "$W/httpd.err" | grep -E '\] (error|warn) rid=|:(error|warn|crit|alert|emerg)\]' |
		    tail -n 12 | sed "s|^|server: |" >&2
	done
else
	filter=${FB_TEST_FILTER:-${suites:+@($suites)/*}}
	"$bld/tests/integ/integ" --jobs 1 ${filter:+--filter "$filter"}
	rc=$?
fi
if [ $rc -ne 0 ]; then
	echo "--- last lines of the server log ---" >&2
	tail -n 40 "$W/httpd.err" >&2
fi
# every answer received, against openapi.json's schema for its operation
# and status (issue 18), and every event the webhook receiver was sent,
# against its webhook's: Ajv from tests/e2e's lockfile
if [ -z "${FB_TEST_FILTER:-}" ] && command -v node >/dev/null; then
	[ -d tests/e2e/node_modules/ajv ] && [ -d tests/e2e/node_modules/ajv-formats ] ||
	    (cd tests/e2e && npm ci --no-audit --no-fund --silent) >/dev/null 2>&1
	curl -s "$FB_TEST_URL/api/v1/openapi.json" >"$W/openapi.json"
	node tests/integ/validate.mjs "$W/openapi.json" "$FB_RESP_LOG" "$FB_HOOK_FILE" || rc=1
fi
exit $rc
