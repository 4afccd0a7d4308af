# /etc/cron.d/formback (the formback package): Formback's cron jobs
# (formback-abandon(8) and the others).  Each does one bounded pass and
# exits; several copies may run at once on one or many hosts.
FORMBACK_CONF=/etc/formback/formback.conf

* * * * *    formback  [ -x /usr/sbin/formback-abandon ] && /usr/sbin/formback-abandon
* * * * *    formback  [ -x /usr/sbin/formback-deliver ] && /usr/sbin/formback-deliver
* * * * *    formback  [ -x /usr/sbin/formback-webhooks ] && /usr/sbin/formback-webhooks
*/10 * * * * formback  [ -x /usr/sbin/formback-aggregate ] && /usr/sbin/formback-aggregate
