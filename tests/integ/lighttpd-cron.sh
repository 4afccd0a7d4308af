#!/bin/sh
# The integration suites of the cron passes, the sending, the reports and
# the plans behind lighttpd (tests/integ/suites.sh), beside
# tests/integ/lighttpd.sh: tests/integ/harness.sh with FB_SUITES, shuffled.
. "${top_srcdir:-.}/tests/integ/suites.sh"
FB_SUITES=${FB_SUITES:-$FB_CRON_SUITES} \
    exec "${top_srcdir:-.}/tests/integ/harness.sh" "$@"
