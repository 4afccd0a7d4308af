/* Outbound HTTP to customers' hosts: the address rule (netguard.h). */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "netguard.h"

/* a.b.c.d as one number, for the range tests */
#define V4(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | \
	((uint32_t)(c) << 8) | (uint32_t)(d))

static const struct { uint32_t net; unsigned bits; } v4_special[] = {
	{ V4(0, 0, 0, 0), 8 },		/* "this network" */
	{ V4(10, 0, 0, 0), 8 },		/* RFC 1918 */
	{ V4(100, 64, 0, 0), 10 },	/* CGNAT, RFC 6598 */
	{ V4(127, 0, 0, 0), 8 },	/* loopback */
	{ V4(169, 254, 0, 0), 16 },	/* link-local, cloud metadata */
	{ V4(172, 16, 0, 0), 12 },	/* RFC 1918 */
	{ V4(192, 0, 0, 0), 24 },	/* IETF protocol assignments */
	{ V4(192, 0, 2, 0), 24 },	/* TEST-NET-1 */
	{ V4(192, 31, 196, 0), 24 },	/* AS112 */
	{ V4(192, 52, 193, 0), 24 },	/* AMT */
	{ V4(192, 88, 99, 0), 24 },	/* 6to4 relay anycast */
	{ V4(192, 168, 0, 0), 16 },	/* RFC 1918 */
	{ V4(192, 175, 48, 0), 24 },	/* AS112 */
	{ V4(198, 18, 0, 0), 15 },	/* benchmarking */
	{ V4(198, 51, 100, 0), 24 },	/* TEST-NET-2 */
	{ V4(203, 0, 113, 0), 24 },	/* TEST-NET-3 */
	{ V4(224, 0, 0, 0), 4 },	/* multicast */
	{ V4(240, 0, 0, 0), 4 },	/* reserved, broadcast */
};

static bool
v4_public(uint32_t a)
{
	size_t	 i;

	for (i = 0; i < NELEM(v4_special); i++)
		if ((a >> (32 - v4_special[i].bits)) ==
		    (v4_special[i].net >> (32 - v4_special[i].bits)))
			return false;
	return true;
}

static uint32_t
v4_at(const unsigned char *p)
{
	return V4(p[0], p[1], p[2], p[3]);
}

static bool
v6_public(const unsigned char a[16])
{
	static const unsigned char zero[12];
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0xff, 0xff };
	static const unsigned char nat64[12] = { 0, 0x64, 0xff, 0x9b };

	/* IPv4 carried in IPv6: judged as that address */
	if (memcmp(a, mapped, 12) == 0 || memcmp(a, nat64, 12) == 0 ||
	    memcmp(a, zero, 12) == 0)
		return v4_public(v4_at(a + 12));
	if (a[0] == 0x20 && a[1] == 0x02)		/* 6to4 2002::/16 */
		return v4_public(v4_at(a + 2));
	if ((a[0] & 0xe0) != 0x20)			/* outside 2000::/3 */
		return false;
	if (a[0] == 0x20 && a[1] == 0x01 && a[2] < 0x02)	/* 2001::/23 */
		return false;
	if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0d && a[3] == 0xb8)
		return false;				/* 2001:db8::/32 */
	return true;
}

bool
net_addr_public(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return v4_public(ntohl(((const struct sockaddr_in *)
		    (const void *)sa)->sin_addr.s_addr));
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)sa;

		/* 64:ff9b:1::/48, local-use NAT64: never public */
		if (s6->sin6_addr.s6_addr[0] == 0 &&
		    s6->sin6_addr.s6_addr[1] == 0x64 &&
		    s6->sin6_addr.s6_addr[2] == 0xff &&
		    s6->sin6_addr.s6_addr[3] == 0x9b &&
		    s6->sin6_addr.s6_addr[4] == 0 &&
		    s6->sin6_addr.s6_addr[5] == 1)
			return false;
		return v6_public(s6->sin6_addr.s6_addr);
	}
	return false;
}

/* Is `name` one of the comma-separated items of list (no spaces kept)? */
static bool
in_list(const char *list, const char *name)
{
	const char	*p, *e;
	size_t		 n = strlen(name);

	for (p = list; p != NULL && *p != '\0'; p = *e == ',' ? e + 1 : e) {
		while (*p == ' ')
			p++;
		for (e = p; *e != '\0' && *e != ','; e++)
			continue;
		if ((size_t)(e - p) == n && strncasecmp(p, name, n) == 0)
			return true;
	}
	return false;
}

bool
net_host_allowed(const struct conf *c, const char *host)
{
	return c->webhook_allow_hosts != NULL && in_list(c->webhook_allow_hosts,
	    host);
}

bool
net_resolve_override(const struct conf *c, const char *host, const char *port,
    char addr[64])
{
	const char	*p, *e, *a;
	size_t		 hn = strlen(host), pn = strlen(port);

	for (p = c->webhook_resolve; p != NULL && *p != '\0';
	    p = *e == ',' ? e + 1 : e) {
		while (*p == ' ')
			p++;
		for (e = p; *e != '\0' && *e != ','; e++)
			continue;
		/* host:port:address */
		if ((size_t)(e - p) > hn + pn + 2 &&
		    strncasecmp(p, host, hn) == 0 &&
		    p[hn] == ':' && strncmp(p + hn + 1, port, pn) == 0 &&
		    p[hn + 1 + pn] == ':') {
			a = p + hn + pn + 2;
			/*
			 * an IPv6 address may be in brackets, as curl writes it
			 */
			if (*a == '[' && e - a > 2 && e[-1] == ']') {
				a++;
				e--;
			}
			if ((size_t)(e - a) >= 64)
				return false;
			memcpy(addr, a, (size_t)(e - a));
			addr[e - a] = '\0';
			return true;
		}
	}
	return false;
}

bool
net_url_ok(const struct conf *c, const char *in, bool https_only,
    char out[URL_MAX + 1], const char **why)
{
	struct url_loc	 loc;
	struct addrinfo	 hints, *res = NULL, *ai;
	char		 host[256], addr[64];
	const char	*port;
	size_t		 n;
	bool		 ok = true;

	out[0] = '\0';
	if (!url_parse(in, &loc) || !url_href(&loc, out, URL_MAX + 1)) {
		*why = "not a URL";
		return false;
	}
	if (https_only && strcmp(loc.protocol, "https:") != 0) {
		*why = "not https";
		return false;
	}
	if (net_host_allowed(c, loc.hostname))
		return true;
	/* "[::1]" is the IPv6 literal ::1 */
	snprintf(host, sizeof(host), "%s", loc.hostname);
	n = strlen(host);
	if (n > 2 && host[0] == '[' && host[n - 1] == ']') {
		memmove(host, host + 1, n - 2);
		host[n - 2] = '\0';
	}
	port = loc.port[0] != '\0' ? loc.port :
	    strcmp(loc.protocol, "https:") == 0 ? "443" : "80";
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	if (net_resolve_override(c, host, port, addr)) {
		hints.ai_flags = AI_NUMERICHOST;
		if (getaddrinfo(addr, NULL, &hints, &res) != 0)
			res = NULL;
	} else if (getaddrinfo(host, NULL, &hints, &res) != 0)
		res = NULL;
	if (res == NULL) {
		*why = "host does not resolve";
		return false;
	}
	for (ai = res; ai != NULL && ok; ai = ai->ai_next)
		ok = net_addr_public(ai->ai_addr);
	freeaddrinfo(res);
	if (!ok)
		*why = "internal address";
	return ok;
}
