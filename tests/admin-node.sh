#!/bin/sh
# The admin UI's own tests with node's test runner (admin/test/): its
# widgets (ui.js), its API module (api.js), the router and every screen
# over happy-dom, a DOM without a browser.  happy-dom is installed from
# admin/test/package-lock.json the first time (npm ci, as tests/e2e's).
top_srcdir=${top_srcdir:-.}
cd "$top_srcdir" || exit 99
if [ ! -d admin/test/node_modules/happy-dom ]; then
	(cd admin/test && npm ci --no-audit --no-fund --silent) || {
		echo "admin-node: cannot install the packages of" \
		    "admin/test/package-lock.json from npm" >&2
		echo "# fail 1"
		exit 99
	}
fi
exec node --test admin/test/
