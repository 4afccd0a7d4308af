#!/bin/sh
# The integration suites whose subject is the web server's part, again
# behind Apache httpd with mod_fcgid (issue 18: Apache proven):
# harness.sh with FB_HTTPD=apache, which makes scripts/lib.sh start
# apache2 through fcgi-conf/formback-apache.conf as shipped instead of
# lighttpd; each test in its own process, in a shuffled order
# (FB_SHUFFLE, today's date unless set: the log names it).  The suites
# of the cron passes, the sending and the database's plans, whose
# answers do not depend on the server in front, run behind lighttpd only
# (tests/integ/harness.sh), so that the passes fit CI's time.
FB_HTTPD=apache \
    FB_SUITES=${FB_SUITES:-core auth sessions security capture rate prefork faults openapi sites} \
    exec "${top_srcdir:-.}/tests/integ/harness.sh" "$@"
