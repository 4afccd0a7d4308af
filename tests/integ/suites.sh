# Sourced by the lighttpd passes of make check: the suites of the cron
# passes, the sending, the reports and the plans (FB_CRON_SUITES), whose
# answers do not depend on the server in front, run as one half of the
# lighttpd pass (tests/integ/lighttpd-cron.sh), every other suite as the
# other (tests/integ/lighttpd.sh), side by side under make -j2 check; a
# new suite lands in the second unless named here.
FB_CRON_SUITES="deliver deliveries webhooks usage pp_checks suppressions \
reports campaigns scenarios messages ctl"
