#!/bin/sh
# Every migration in db/migrations is installed: listed in Makefile.am's
# dist_migrations_DATA (automake takes no wildcard; 0023 was once left out).
# So is every page and module of the admin UI (admin/, in
# dist_wwwadmin_DATA, dist_wwwadminscreens_DATA or
# dist_wwwadminvendor_DATA), and its node tests
# are distributed (EXTRA_DIST).
top_srcdir=${top_srcdir:-.}
cd "$top_srcdir" || exit 99
rc=0
for f in db/migrations/*.sql; do
	if ! grep -q "$f" Makefile.am; then
		echo "lint-dist: $f is not in dist_migrations_DATA" >&2
		rc=1
	fi
done

# the words of Makefile.am's variable $1, one a line
words() {
	sed -e ':a' -e '/\\$/N; s/\\\n//; ta' Makefile.am |
	    sed -n "s/^$1[[:space:]]*=[[:space:]]*//p" | tr -s ' \t' '\n\n'
}
installed=$(words dist_wwwadmin_DATA; words dist_wwwadminscreens_DATA
    words dist_wwwadminvendor_DATA)
extra=$(words EXTRA_DIST)
for f in $(find admin -name node_modules -prune -o -type f ! -name '.*' \
    -print | sort); do
	case $f in
	admin/test/*) list=$extra what=EXTRA_DIST ;;
	*) list=$installed what="a dist_wwwadmin*_DATA list" ;;
	esac
	if ! printf '%s\n' "$list" | grep -qxF "$f"; then
		echo "lint-dist: $f is not in $what" >&2
		rc=1
	fi
done
[ $rc -ne 0 ] ||
    echo "lint-dist: every migration and every file of the admin UI is listed"
exit $rc
