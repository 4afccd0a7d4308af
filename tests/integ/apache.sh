#!/bin/sh
# The integration suite again behind Apache httpd with mod_fcgid (issue
# 18: Apache proven): harness.sh with FB_HTTPD=apache, which makes
# scripts/lib.sh start apache2 through fcgi-conf/formback-apache.conf as
# shipped instead of lighttpd; and each test in its own process, in a
# shuffled order (FB_SHUFFLE, today's date unless set: the log names it).
FB_HTTPD=apache FB_SHUFFLE=${FB_SHUFFLE:-$(date +%Y%m%d)} \
    exec "${top_srcdir:-.}/tests/integ/harness.sh" "$@"
