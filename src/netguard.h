/*
 * Outbound HTTP to hosts customers name (netguard.c): never to a private
 * or special address (issue 14, SSRF; formback.conf(5) webhook_*).
 * The check is made on the URL when it is registered and again on every
 * address a connection is about to use, so a name that resolves
 * elsewhere later (DNS rebinding) cannot pass.
 */
#ifndef FORMBACK_NETGUARD_H
#define FORMBACK_NETGUARD_H

#include <sys/socket.h>

#include "formback.h"
#include "url.h"

/*
 * Is this an address a customer's receiver may have: false for loopback,
 * "this network" (0.0.0.0/8), RFC 1918, CGNAT (100.64.0.0/10),
 * link-local (169.254.0.0/16, with the cloud metadata address), the
 * IETF, documentation and benchmarking ranges, 6to4 relays, multicast,
 * reserved and broadcast (RFC 6890 and the IANA special-purpose
 * registries); in IPv6 everything outside global unicast 2000::/3, and
 * in it Teredo and ORCHID (2001::/23), documentation (2001:db8::/32) and
 * local NAT64 (64:ff9b:1::/48); an IPv4 address carried in IPv6 (mapped
 * ::ffff:0:0/96, compatible ::/96, NAT64 64:ff9b::/96, 6to4 2002::/16)
 * is judged as that IPv4 address.  Any other family is false.
 */
bool	net_addr_public(const struct sockaddr *);

/*
 * Is `host` (lower case, as url_parse() writes it) named in the
 * configuration's webhook_allow_hosts (test deployments only: hosts
 * exempt from the address rule)?
 */
bool	net_host_allowed(const struct conf *, const char *host);

/*
 * The address the test-only webhook_resolve key gives host:port (curl's
 * --resolve syntax, "host:port:address" separated by commas), copied
 * into addr (64 bytes); false when it names none.
 */
bool	net_resolve_override(const struct conf *, const char *host,
	    const char *port, char addr[64]);

/*
 * Check a URL a tenant gives for Formback to fetch or post to, when it is
 * registered (contract: Webhook endpoints, create rules; privacy-policy
 * URLs): https (or http too when `https_only` is false), and unless the
 * host is allowed (net_host_allowed), every address it is or resolves to
 * is public (net_addr_public).  The name is resolved through
 * webhook_resolve, else getaddrinfo() (bounded by the resolver's timeout;
 * RES_OPTIONS in formback.fcgi(8)); a name that does not resolve is
 * refused too.  On success the URL as url_href() serializes it is in
 * out.  Returns false and a short English reason in *why (static)
 * otherwise.
 */
bool	net_url_ok(const struct conf *, const char *in, bool https_only,
	    char out[URL_MAX + 1], const char **why);

#endif
