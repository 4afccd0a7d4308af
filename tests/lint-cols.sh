#!/bin/sh
# Lines within 80 columns (STYLE; style(9)), tabs of 8, a character a
# column: fails on any line of a C file of src/ or tests/ that is longer,
# naming the file and the line.  The generated openapi-*.c are not read.
top_srcdir=${top_srcdir:-.}
cd "$top_srcdir" || exit 99
exec python3 - <<'PY'
import glob, sys

files = sorted(f for pat in ('src/**/*.[ch]', 'tests/**/*.[ch]')
               for f in glob.glob(pat, recursive=True)
               if f not in ('src/openapi-schemas.c', 'src/openapi-text.c')
               and '/node_modules/' not in f)
over = 0
for f in files:
    for i, l in enumerate(open(f, encoding='utf-8'), 1):
        if len(l.rstrip('\n').expandtabs(8)) > 80:
            print('lint-cols: %s:%d: over 80 columns' % (f, i),
                  file=sys.stderr)
            over += 1
if over:
    print('lint-cols: %d line(s) over 80 columns' % over, file=sys.stderr)
    sys.exit(1)
print('lint-cols: %d C files of src/ and tests/, every line within 80 '
      'columns' % len(files))
PY
