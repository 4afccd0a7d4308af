#!/bin/sh
# The integration suites whose subject is the web server's part, again
# behind Apache httpd with mod_fcgid (issue 18: Apache proven):
# harness.sh with FB_HTTPD=apache, which makes scripts/lib.sh start
# apache2 through fcgi-conf/formback-apache.conf as shipped instead of
# lighttpd;
# in order, in one process (the lighttpd passes shuffle every suite).
# The suites of the cron passes, the sending and the database's plans,
# whose answers do not depend on the server in front, run behind lighttpd
# only, and so do those of the accounts and sessions (authentication,
# sign-in, sites), whose answers are formback.fcgi's alone, behind
# mod_proxy_fcgi too (tests/integ/apache-proxy.sh), and those of
# formback.fcgi's own worker pool (prefork), which speak FastCGI to it
# with no web server between, so that the passes fit CI's time.
FB_HTTPD=apache FB_SHUFFLE=${FB_SHUFFLE:-0} \
    FB_SUITES=${FB_SUITES:-core security capture rate faults openapi} \
    exec "${top_srcdir:-.}/tests/integ/harness.sh" "$@"
