/*
 * Outbound HTTP to hosts tenants name (outbound.c; issue 14): one libcurl
 * setup for formback-webhooks' sends and its privacy-policy fetches, so
 * that no such request reaches a private address (netguard.h).  Used by
 * the cron binaries only: formback.fcgi links no libcurl.
 */
#ifndef FORMBACK_OUTBOUND_H
#define FORMBACK_OUTBOUND_H

#include <curl/curl.h>

#include "formback.h"

#define OUTBOUND_TIMEOUT_SECS	10L

/* What a guarded request learned about its connections. */
struct outbound {
	bool	 allowed;	/* the host is in webhook_allow_hosts */
	/* a connection was refused by the address rule */
	bool	 refused;
	size_t	 got;		/* bytes of the answer read */
	/* read at most this many (then the transfer ends) */
	size_t	 max;
	struct buf *keep;	/* NULL: the answer is dropped */
	char	 error[CURL_ERROR_SIZE];
};

/*
 * The test-only webhook_resolve entries as a curl list for CURLOPT_RESOLVE
 * (NULL when none); the caller frees it with curl_slist_free_all().
 */
struct curl_slist *outbound_resolve_list(const struct conf *);

/*
 * Set up h for a request to `url`: https only (http too when
 * `https_only` is false), no redirects, connect and total timeouts of
 * OUTBOUND_TIMEOUT_SECS, the receiver's certificate checked (against
 * webhook_ca_file when set), `resolve` (outbound_resolve_list()), and
 * every address a connection is about to use checked by
 * net_addr_public() unless the host is allowed; the answer goes into
 * o->keep (or nowhere), at most o->max bytes.  o is initialised here and
 * must outlive the transfer.
 */
void	outbound_setup(CURL *h, const struct conf *, const char *url,
	    bool https_only, struct curl_slist *resolve, struct outbound *o,
	    struct buf *keep, size_t max);

/*
 * A short English reason for a failed transfer, for logs and error
 * columns: the address rule, the HTTP status, or curl's message.
 */
void	outbound_error(const struct outbound *, CURLcode, long status,
	    char *out, size_t outsz);

#endif
