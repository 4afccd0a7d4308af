/*
 * Outbound HTTP to hosts tenants name, through the address rule (outbound.h).
 */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "netguard.h"
#include "outbound.h"
#include "url.h"

static size_t
answer(char *p, size_t sz, size_t n, void *arg)
{
	struct outbound	*o = arg;

	o->got += sz * n;
	if (o->got > o->max)
		return 0;
	if (o->keep != NULL && buf_add(o->keep, p, sz * n) != FB_OK)
		return 0;
	return sz * n;
}

static curl_socket_t
open_socket(void *arg, curlsocktype purpose, struct curl_sockaddr *a)
{
	struct outbound	*o = arg;

	(void)purpose;
	if (!o->allowed && !net_addr_public(&a->addr)) {
		o->refused = true;
		return CURL_SOCKET_BAD;
	}
	return socket(a->family, a->socktype, a->protocol);
}

struct curl_slist *
outbound_resolve_list(const struct conf *c)
{
	struct curl_slist *l = NULL, *n;
	const char	*p, *e;
	char		 item[300];

	for (p = c->webhook_resolve; p != NULL &&
	    *p != '\0'; p = *e ? e + 1 : e) {
		for (e = p; *e != '\0' && *e != ','; e++)
			continue;
		snprintf(item, sizeof(item), "%.*s", (int)(e - p), p);
		if ((n = curl_slist_append(l, item)) == NULL)
			break;
		l = n;
	}
	return l;
}

void
outbound_setup(CURL *h, const struct conf *c, const char *url, bool https_only,
    struct curl_slist *resolve, struct outbound *o, struct buf *keep,
    size_t max)
{
	struct url_loc	 loc;

	memset(o, 0, sizeof(*o));
	o->allowed = url_parse(url, &loc) && net_host_allowed(c, loc.hostname);
	o->keep = keep;
	o->max = max;
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR,
	    https_only ? "https" : "http,https");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, OUTBOUND_TIMEOUT_SECS);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, OUTBOUND_TIMEOUT_SECS);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, answer);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, o);
	curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, open_socket);
	curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, o);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, o->error);
	if (resolve != NULL)
		curl_easy_setopt(h, CURLOPT_RESOLVE, resolve);
	if (c->webhook_ca_file != NULL)
		curl_easy_setopt(h, CURLOPT_CAINFO, c->webhook_ca_file);
}

void
outbound_error(const struct outbound *o, CURLcode rc, long status, char *out,
    size_t outsz)
{
	if (o->refused)
		snprintf(out, outsz, "refused: internal address");
	else if (status > 0)
		snprintf(out, outsz, "HTTP %ld", status);
	else
		snprintf(out, outsz, "%s", o->error[0] != '\0' ? o->error :
		    curl_easy_strerror(rc));
}
