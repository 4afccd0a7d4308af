#!/bin/sh
# The integration suites behind lighttpd, but for the cron passes' (they
# run beside these, tests/integ/lighttpd-cron.sh): tests/integ/harness.sh
# with FB_SKIP_SUITES, shuffled, with the TLS instance.
. "${top_srcdir:-.}/tests/integ/suites.sh"
FB_SKIP_SUITES=$FB_CRON_SUITES exec "${top_srcdir:-.}/tests/integ/harness.sh" "$@"
