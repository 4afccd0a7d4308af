/*
 * formbackctl openapi [--base-url URL]: print openapi.json, the document
 * formback.fcgi serves as /api/v1/openapi.json, without a server or a
 * database: for client generators, and for `make reference`, which
 * renders it into the API reference page.  With --base-url the document's
 * server is URL ("/": whichever host serves it) and no configuration is
 * read; without, the configuration's base_url, as the server says.
 */
#include <string.h>

#include "ctl/ctl.h"
#include "api.h"

/* Whether s is printable ASCII without a space. */
static bool
printable(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

static void
openapi(struct ctl *c)
{
	const char	*url, *host;
	char		 err[512], base[1024];
	size_t		 n;

	if ((url = ctl_opt(c, "base-url", false)) == NULL) {
		if (conf_load(&c->conf, c->cpath, err, sizeof(err)) != FB_OK)
			ctl_die(c, 2, "%s", err);
		url = c->conf.base_url;
	}
	n = strlen(url);
	host = strncmp(url, "https://", 8) == 0 ? url + 8 :
	    strncmp(url, "http://", 7) == 0 ? url + 7 : NULL;
	if (strcmp(url, "/") != 0 && (host == NULL || *host == '\0' ||
	    *host == '/' || n >= sizeof(base) ||
	    strcspn(url, " \"<>\\^`{|}") < n || !printable(url)))
		ctl_die(c, 2, "base URL '%s' is neither '/' nor an http or "
		    "https URL", url);
	memcpy(base, url, n + 1);
	/* base_url's rule: no trailing slash, unless it is the path "/" */
	while (n > 1 && base[n - 1] == '/')
		base[--n] = '\0';
	ctl_print(openapi_document(base));
}

const struct ctl_cmd ctl_openapi_cmd = {
	"openapi", NULL, "[--base-url URL]", CTL_NOCONF, openapi
};
