#!/bin/sh
# tag.js's own tests with node's test runner: the shared URL-rule vectors
# (tests/data/url-match.json) and field helpers, no browser.
top_srcdir=${top_srcdir:-.}
cd "$top_srcdir" || exit 99
exec node --test tag/test/
