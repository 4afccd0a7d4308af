#!/bin/sh
# The integration suite again behind Apache httpd with mod_fcgid (issue
# 18: Apache proven): harness.sh with FB_HTTPD=apache, which makes
# scripts/lib.sh start apache2 through fcgi-conf/formback-apache.conf as
# shipped instead of lighttpd.
FB_HTTPD=apache exec "${top_srcdir:-.}/tests/integ/harness.sh" "$@"
