#!/bin/sh
# Banned functions (STYLE 19; after curl's checksrc): fails when src/ uses
# any of them.  mysql_query() is banned outright: every statement with
# request data is prepared with '?' placeholders (src/db/db.c).
#
# The typed boundary (issue 41): outside src/db/ no untyped result set
# (struct dbres, dbres_*()), no MariaDB call and no SQL: every statement
# and the row struct it reads are in src/db/ and src/db/store.h.
top_srcdir=${top_srcdir:-.}
cd "$top_srcdir" || exit 99
rc=0
pattern='(^|[^_[:alnum:]])(sprintf|vsprintf|strcpy|strcat|atoi|atol|strtok|rand|srand|gets|mysql_query)[[:space:]]*\('
if grep -rnE "$pattern" src --include='*.c' --include='*.h'; then
	echo "lint-banned: banned functions above" >&2
	rc=1
fi
outside() {
	grep -rnE "$1" src --include='*.c' --include='*.h' | grep -v '^src/db/'
}
if outside '(^|[^_[:alnum:]])(dbres|mysql_[a-z_]+|MYSQL(_[A-Z]+)?)([^_[:alnum:]]|$)'; then
	echo "lint-banned: result sets or MariaDB calls outside src/db/ above" >&2
	rc=1
fi
sql='"[^"]*(SELECT [a-z@*(]|INSERT INTO|UPDATE [a-z_]+ SET|DELETE FROM|SAVEPOINT|START TRANSACTION|ROLLBACK|COMMIT)'
if outside "$sql"; then
	echo "lint-banned: SQL outside src/db/ above" >&2
	rc=1
fi
[ $rc -eq 0 ] && echo "lint-banned: no banned functions in src/, no SQL outside src/db/"
exit $rc
