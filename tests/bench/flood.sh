#!/bin/sh
# tests/bench/flood.sh: how far a burst from one address gets past the
# collector's per-address capture limit (issue 40; formback.fcgi(8)
# "Abuse limits").
#
# Starts its own MariaDB and lighttpd with formback.fcgi (-w pre-forked
# workers) and tag_captures_per_hour = -l, then -r times: a new site, and
# a burst of -n captures (new visitors, made-up numbers) from one address
# over -c connections opened first and let go at once
# (tests/bench/flood.py).  Prints each burst's 204s and the largest, the
# median and the overshoot of the largest over the limit.
#
#   tests/bench/flood.sh [-b builddir] [-w workers] [-l limit] [-n burst]
#                        [-c connections] [-r rounds]
set -eu
cd "$(dirname "$0")/../.."
. scripts/lib.sh

bld=$(pwd) workers=4 limit=30 burst=60 conns=32 rounds=10
while getopts b:w:l:n:c:r: o; do
	case $o in
	b) bld=$(cd "$OPTARG" && pwd) ;;
	w) workers=$OPTARG ;;
	l) limit=$OPTARG ;;
	n) burst=$OPTARG ;;
	c) conns=$OPTARG ;;
	r) rounds=$OPTARG ;;
	*) echo "usage: tests/bench/flood.sh [-b builddir] [-w workers] [-l limit]" \
	    "[-n burst] [-c connections] [-r rounds]" >&2; exit 2 ;;
	esac
done
[ -x "$bld/formback.fcgi" ] && [ -x "$bld/formbackctl" ] || {
	echo "flood.sh: no formback.fcgi and formbackctl in $bld" >&2; exit 2; }
[ -x "$bld/tests/freeport" ] && freeport=$bld/tests/freeport ||
    freeport=$(pwd)/tests/freeport

W=$(mktemp -d /tmp/fbflood.XXXXXX)
trap 'fb_stack_stop "$W"; rm -rf "$W"' EXIT INT TERM
set -- $("$freeport" 2)
export FB_TAG_CAPTURES_PER_HOUR=$limit FB_TAG_EVENTS_PER_HOUR=1000000
export FB_SITE_NEW_LEADS_FLOOR=1000000 FB_LOG_LEVEL=warn
fb_stack_start "$W" "$1" "$2" "$workers" "$bld"
export FORMBACK_CONF="$W/formback.conf"
url="http://127.0.0.1:$2"
tenant=$("$bld/formbackctl" tenant create --name flood --plan pro |
    sed 's/.*"id":"\([^"]*\)".*/\1/')

echo "burst of $burst captures over $conns connections, limit $limit," \
    "$workers workers ($bld/formback.fcgi)"
all=""
i=0
while [ $i -lt "$rounds" ]; do
	i=$((i + 1))
	pk=$("$bld/formbackctl" site create --tenant "$tenant" --name "flood $i" \
	    --domain shop.example.jp | sed 's/.*"public_key":"\([^"]*\)".*/\1/')
	set -- $(/usr/bin/python3 tests/bench/flood.py "$url" "$pk" "$burst" "$conns")
	echo "round $i: $1 admitted, $2 refused, $3 other"
	all="$all $1"
done
echo "$all" | tr ' ' '\n' | sed '/^$/d' | sort -n | awk -v limit="$limit" '
	{ v[NR] = $1 }
	END {
		med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "admitted: min %d, median %s, max %d; overshoot of the " \
		    "max: %.0f%% over %d\n", v[1], med, v[NR],
		    100 * (v[NR] - limit) / limit, limit
	}'
