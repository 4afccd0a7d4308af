#!/bin/sh
# The integration suite behind Apache httpd with mod_proxy_fcgi:
# harness.sh with FB_HTTPD=apache FB_APACHE_FCGI=proxy, which makes
# scripts/lib.sh start formback.fcgi on its own socket with its own
# workers (-s, -n) and apache2 through fcgi-conf/formback-apache.conf with
# FORMBACK_SOCKET defined, as an operator would.
FB_HTTPD=apache FB_APACHE_FCGI=proxy exec "${top_srcdir:-.}/tests/integ/harness.sh" "$@"
