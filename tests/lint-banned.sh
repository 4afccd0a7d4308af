#!/bin/sh
# Banned functions (STYLE 19; after curl's checksrc): fails when src/ uses
# any of them.  mysql_query() is banned outright: every statement with
# request data is prepared with '?' placeholders (src/db/db.c).
top_srcdir=${top_srcdir:-.}
cd "$top_srcdir" || exit 99
pattern='(^|[^_[:alnum:]])(sprintf|vsprintf|strcpy|strcat|atoi|atol|strtok|rand|srand|gets|mysql_query)[[:space:]]*\('
if grep -rnE "$pattern" src --include='*.c' --include='*.h'; then
	echo "lint-banned: banned functions above" >&2
	exit 1
fi
echo "lint-banned: no banned functions in src/"
exit 0
