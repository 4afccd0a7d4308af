#!/bin/sh
# The integration suites that meet what mod_proxy_fcgi changes (how a
# request reaches formback.fcgi, and formback.fcgi's own worker pool:
# admission, rate limits, respawns, the database's faults) behind Apache
# httpd with mod_proxy_fcgi: harness.sh with FB_HTTPD=apache
# FB_APACHE_FCGI=proxy, which makes scripts/lib.sh start formback.fcgi
# on its own socket with its own workers (-s, -n) and apache2 through
# fcgi-conf/formback-apache.conf with FORMBACK_SOCKET defined, as an
# operator would; in order, in one process (the mod_fcgid pass,
# tests/integ/apache.sh, shuffles the web server's suites).
FB_HTTPD=apache FB_APACHE_FCGI=proxy FB_SHUFFLE=${FB_SHUFFLE:-0} \
    FB_SUITES=${FB_SUITES:-core auth sessions capture rate prefork faults openapi} \
    exec "${top_srcdir:-.}/tests/integ/harness.sh" "$@"
