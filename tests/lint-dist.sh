#!/bin/sh
# Every migration in db/migrations is installed: listed in Makefile.am's
# dist_migrations_DATA (automake takes no wildcard; 0023 was once left out).
top_srcdir=${top_srcdir:-.}
cd "$top_srcdir" || exit 99
rc=0
for f in db/migrations/*.sql; do
	if ! grep -q "$f" Makefile.am; then
		echo "lint-dist: $f is not in dist_migrations_DATA" >&2
		rc=1
	fi
done
[ $rc -ne 0 ] || echo "lint-dist: every migration is installed"
exit $rc
