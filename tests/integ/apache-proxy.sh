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
#
# With FB_PACKAGE_INSTALLED (a prefix: scripts/check installs the Debian
# package that scripts/package builds and sets /usr), the pass runs the
# installed binaries, fragments, admin UI and migrations instead of the
# build's: a release build (no sanitizers), so without the fault suite,
# whose requests ask the build's fault points (--enable-fault-points).
if [ -n "${FB_PACKAGE_INSTALLED:-}" ]; then
	export FB_INSTALLED=$FB_PACKAGE_INSTALLED
	suites="core auth sessions capture rate prefork openapi"
else
	suites="core auth sessions capture rate prefork faults openapi"
fi
FB_HTTPD=apache FB_APACHE_FCGI=proxy FB_SHUFFLE=${FB_SHUFFLE:-0} \
    FB_SUITES=${FB_SUITES:-$suites} \
    exec "${top_srcdir:-.}/tests/integ/harness.sh" "$@"
