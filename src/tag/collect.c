/*
 * The page tag's event collector (design 3): validation with caps, CORS
 * for the site's domain, contacts normalised and sealed before they reach
 * the database (no clear contact is logged, stored or echoed), and the
 * event filed in the intake queue with one statement.  The lead life
 * cycle is applied from the queue (tag/apply.c).
 */
#include <arpa/inet.h>
#include <netinet/in.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "../req.h"
#include "../ingest.h"
#include "../match.h"
#include "../pii.h"
#include "../db/store.h"

#define EVENT_BODY_MAX	16384
#define EVENT_DEPTH	6

struct event {
	char		 url_buf[URL_MAX + 1], ref_buf[URL_MAX + 1];
	const char	*site, *visitor, *session, *type, *url, *referrer;
	const char	*campaign, *role, *tel, *email;
	int		 consent;	/* -1 not given */
	long long	 ts;
	struct url_loc	 loc, ref;
};

static bool
id_ok(const char *s)
{
	size_t	 n = strlen(s);

	return n >= 8 && n <= 36 &&
	    strspn(s, "0123456789abcdefABCDEF-") == n;
}

/* A string field: NULL when absent or null; false when wrong. */
static bool
field(json_object *o, const char *k, size_t max, bool required,
    const char **out)
{
	json_object	*v;

	*out = NULL;
	if (!json_object_object_get_ex(o, k, &v) || v == NULL)
		return !required;
	if (!json_object_is_type(v, json_type_string))
		return false;
	*out = json_object_get_string(v);
	return strlen(*out) <= max && strlen(*out) ==
	    (size_t)json_object_get_string_len(v) && utf8_len(*out) >= 0;
}

/*
 * An optional field: what is wrong with it is dropped, never the event
 * (issue 11: a capture is not lost for a bad optional field).
 */
static const char *
optional(json_object *o, const char *k, size_t max)
{
	const char	*s;

	return field(o, k, max, false, &s) ? s : NULL;
}

/*
 * A page URL (the event's, or its referrer) as it is kept: parsed as the
 * browser parsed it, every part that may carry a contact taken out, and
 * written back as the parser serializes it (url_href()), so that what is
 * stored and later sent as a Location is only ever a well-formed URL
 * (issue 11).  False when it is not an http(s) URL.
 */
static bool
url_keep(const char *in, struct url_loc *loc, char out[URL_MAX + 1])
{
	if (!url_parse(in, loc))
		return false;
	url_scrub(loc);
	return url_href(loc, out, URL_MAX + 1);
}

/*
 * Parse and check the body; on failure writes the 400 naming the field.
 * The identifying fields (v, site, visitor, session, type, url) must be
 * right; an optional one that is not (campaign, role, referrer, contact,
 * consent, ts) is dropped and the event kept.
 */
static bool
event_parse(struct req *r, json_object *o, struct event *ev)
{
	json_object	*v, *c;

	memset(ev, 0, sizeof(*ev));
	ev->consent = -1;
	if (!json_object_object_get_ex(o, "v", &v) ||
	    !json_object_is_type(v, json_type_int) ||
	    json_object_get_int(v) != 1)
		return api_error(r, AC_EVENT_INVALID, "v"), false;
	if (!field(o, "site", 64, true, &ev->site))
		return api_error(r, AC_EVENT_INVALID, "site"), false;
	/* a key of another alphabet names no site */
	if (!ident_ok(ev->site, SITE_KEY_MAX))
		return api_error(r, AC_NOT_FOUND, "site"), false;
	if (!field(o, "visitor", 36, true, &ev->visitor) || !id_ok(ev->visitor))
		return api_error(r, AC_EVENT_INVALID, "visitor"), false;
	if (!field(o, "session", 36, true, &ev->session) || !id_ok(ev->session))
		return api_error(r, AC_EVENT_INVALID, "session"), false;
	if (!field(o, "type", 16, true, &ev->type) ||
	    (strcmp(ev->type, "page_view") != 0 &&
	    strcmp(ev->type, "form_start") != 0 &&
	    strcmp(ev->type, "capture") != 0 && strcmp(ev->type,
	    "consent") != 0 &&
	    strcmp(ev->type, "conversion") != 0))
		return api_error(r, AC_EVENT_INVALID, "type"), false;
	if (!field(o, "url", URL_MAX, true, &ev->url) ||
	    !url_keep(ev->url, &ev->loc, ev->url_buf))
		return api_error(r, AC_EVENT_INVALID, "url"), false;
	ev->url = ev->url_buf;
	/* the referrer: kept as a URL, else not at all */
	if ((ev->referrer = optional(o, "referrer", URL_MAX)) != NULL)
		ev->referrer = url_keep(ev->referrer, &ev->ref, ev->ref_buf) ?
		    ev->ref_buf : NULL;
	if ((ev->campaign = optional(o, "campaign",
	    CAMPAIGN_KEY_MAX)) != NULL &&
	    !ident_ok(ev->campaign, CAMPAIGN_KEY_MAX))
		ev->campaign = NULL;
	if ((ev->role = optional(o, "role", 16)) != NULL &&
	    rule_role_parse(ev->role) < 0)
		ev->role = NULL;
	if (json_object_object_get_ex(o, "contact", &c) &&
	    json_object_is_type(c, json_type_object)) {
		ev->tel = optional(c, "tel", 64);
		ev->email = optional(c, "email", 254);
	}
	if (json_object_object_get_ex(o, "consent", &v) &&
	    json_object_is_type(v, json_type_boolean))
		ev->consent = json_object_get_boolean(v);
	if (json_object_object_get_ex(o, "ts", &v) &&
	    (json_object_is_type(v, json_type_int) ||
	    json_object_is_type(v, json_type_double)))
		ev->ts = json_object_get_int64(v);
	return true;
}

/* The host is the site's domain or one of its subdomains. */
static bool
host_of_site(const char *host, size_t hn, const char *domain)
{
	size_t	 dn = strlen(domain);

	if (hn == dn)
		return strncasecmp(host, domain, hn) == 0;
	return hn > dn && host[hn - dn - 1] == '.' &&
	    strncasecmp(host + hn - dn, domain, dn) == 0;
}

static bool
origin_ok(const char *origin, const char *domain)
{
	const char	*h, *e;

	if (origin == NULL || strcmp(origin, "null") == 0)
		/* sendBeacon from a page always sends one; curl not */
		return true;
	if ((h = strstr(origin, "://")) == NULL)
		return false;
	h += 3;
	e = h + strcspn(h, ":/");
	return host_of_site(h, (size_t)(e - h), domain);
}

static void
cors(struct req *r, const char *domain)
{
	if (r->origin != NULL && strcmp(r->origin, "null") != 0 &&
	    (domain == NULL || origin_ok(r->origin, domain))) {
		req_header(r, "Access-Control-Allow-Origin", r->origin);
		req_header(r, "Vary", "Origin");
	}
}

/*
 * What the collector needs of a site, kept by each worker for SITE_TTL
 * seconds: a busy site costs no look-up per event.  A change to a site's
 * domain or its tenant's consent mode reaches the collector within
 * SITE_TTL; the applier reads both again when it applies the event.
 */
#define SITE_CACHE	64
#define SITE_TTL	10

struct site_seen {
	char	 pk[40], id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1];
	char	 domain[256];
	bool	 explicit_consent;
	time_t	 until;		/* CLOCK_MONOTONIC seconds */
};

static struct site_seen	 seen[SITE_CACHE];
static unsigned		 seen_next;

static time_t
mono_now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* The site with public key pk into *out; NULL (and no error) when none. */
static enum fb_err
site_of(struct req *r, const char *pk, const struct site_seen **out)
{
	struct site_seen	*s;
	struct dbrows		 cx;
	const struct event_context_row *c;
	time_t			 now = mono_now();
	unsigned		 i;
	enum fb_err		 e;

	*out = NULL;
	for (i = 0; i < SITE_CACHE; i++)
		if (seen[i].until > now && strcmp(seen[i].pk, pk) == 0) {
			*out = &seen[i];
			return FB_OK;
		}
	if ((e = db_event_context(r->db, pk, NULL, &cx)) == FB_ENOTFOUND)
		return FB_OK;
	if (e != FB_OK)
		return e;
	if (strlen(pk) < sizeof(s->pk)) {
		c = cx.row;
		s = &seen[seen_next++ % SITE_CACHE];
		snprintf(s->pk, sizeof(s->pk), "%s", pk);
		snprintf(s->id, sizeof(s->id), "%s", c->site_id);
		snprintf(s->tenant, sizeof(s->tenant), "%s", c->tenant_id);
		snprintf(s->domain, sizeof(s->domain), "%s", c->domain);
		s->explicit_consent = strcmp(c->consent_mode, "explicit") == 0;
		s->until = now + SITE_TTL;
		*out = s;
	}
	dbrows_free(&cx);
	return FB_OK;
}

/*
 * What a collector request keeps until its batch is filed (tag_collect_begin).
 */
struct tag_pending {
	struct event		 ev;
	json_object		*o;
	struct ingest_event	 ie;
	char			 id[UUID_STRLEN + 1], tenant[UUID_STRLEN + 1];
	char			 site[UUID_STRLEN + 1];
	unsigned char		 ts[PII_SEALED_MAX(16)];
	unsigned char		 es[PII_SEALED_MAX(256)];
	char			 domain[256];
	/*
	 * the abuse limits' key (tag_collect_file()): the client address
	 * (4 or 8 bytes), whose first 3 or 6 are its network; of a capture
	 * with a contact, their keyed hashes as the lead keeps them
	 */
	unsigned char		 addr[16];
	size_t			 addrlen;
	unsigned char		 src_addr[PII_BIDXBYTES];
	unsigned char		 src_net[PII_BIDXBYTES];
	bool			 contact;	/* a capture that carries one */
	/* counted one by one in MariaDB */
	bool			 exact;
	bool			 refused;	/* past a limit: answered 429 */
};

/*
 * The key of a client address for the limits: an IPv4 address whole
 * (IPv4-mapped IPv6 too), an IPv6 address by its /64, which one host
 * usually has to itself.  Length 0 when there is none.
 */
static size_t
addr_key(const char *addr, unsigned char out[16])
{
	struct in6_addr	 a6;
	struct in_addr	 a4;

	if (addr == NULL)
		return 0;
	if (inet_pton(AF_INET, addr, &a4) == 1) {
		memcpy(out, &a4, 4);
		return 4;
	}
	if (inet_pton(AF_INET6, addr, &a6) != 1)
		return 0;
	if (IN6_IS_ADDR_V4MAPPED(&a6)) {
		memcpy(out, a6.s6_addr + 12, 4);
		return 4;
	}
	memcpy(out, a6.s6_addr, 8);
	return 8;
}

/* The network of an address key: its /24, or the /48 of an IPv6 one. */
static size_t
net_len(size_t addrlen)
{
	return addrlen == 4 ? 3 : 6;
}

/*
 * An address or network key as it is shown and keyed ("192.0.2.7",
 * "192.0.2.0/24", "2001:db8:1:2::/64", "2001:db8:1::/48").
 */
static void
source_text(const unsigned char *key, size_t len, char out[64])
{
	unsigned char	 b[16] = { 0 };
	char		 t[INET6_ADDRSTRLEN];

	memcpy(b, key, len);
	if (inet_ntop(len <= 4 ? AF_INET : AF_INET6, b, t, sizeof(t)) == NULL)
		t[0] = '\0';
	if (len == 4)
		snprintf(out, 64, "%s", t);
	else
		snprintf(out, 64, "%s/%zu", t, len * 8);
}

/*
 * A capture's sources as its lead keeps them (migration 0034): keyed
 * hashes of the client address and of its network, so that no lead
 * holds a visitor's address.
 */
static void
source_keys(const struct conf *c, struct tag_pending *p)
{
	char	 t[64];

	if (p->addrlen == 0 || !p->contact)
		return;
	source_text(p->addr, p->addrlen, t);
	pii_blind_index(bidx_signing_key(bidx_cur(c)), p->tenant,
	    "client_addr", t, p->src_addr);
	source_text(p->addr, net_len(p->addrlen), t);
	pii_blind_index(bidx_signing_key(bidx_cur(c)), p->tenant,
	    "client_net", t, p->src_net);
	p->ie.src_addr = p->src_addr;
	p->ie.src_net = p->src_net;
}

/*
 * Check the event's site and hosts, and make its row: contacts normalised
 * and sealed under the event's own id (design 6), dropped when the tenant
 * asks for explicit consent and the event does not give it.  Returns
 * false when it answered (an error) instead.
 */
static bool
prepare(struct req *r, struct tag_pending *p, enum fb_err *e)
{
	const struct site_seen	*site;
	struct ingest_event	*ie = &p->ie;
	const struct event	*ev = &p->ev;
	char			 tel[16], email[256];
	enum tel_kind		 kind;

	if ((*e = site_of(r, ev->site, &site)) != FB_OK)
		return false;
	if (site == NULL) {
		(void)api_error(r, AC_NOT_FOUND, "site");
		return false;
	}
	cors(r, site->domain);
	if (!origin_ok(r->origin, site->domain) ||
	    !host_of_site(ev->loc.hostname, strlen(ev->loc.hostname),
	    site->domain)) {
		(void)api_error(r, AC_ORIGIN_NOT_ALLOWED, "url");
		return false;
	}
	/* copies: a later event of the batch may take the cache entry */
	snprintf(p->tenant, sizeof(p->tenant), "%s", site->tenant);
	snprintf(p->site, sizeof(p->site), "%s", site->id);
	snprintf(p->domain, sizeof(p->domain), "%s", site->domain);
	uuid_v7(p->id);
	memset(ie, 0, sizeof(*ie));
	ie->id = p->id;
	ie->tenant = p->tenant;
	ie->site = p->site;
	ie->visitor = ev->visitor;
	ie->session = ev->session;
	ie->type = ev->type;
	ie->campaign_key = ev->campaign;
	ie->role = ev->role;
	ie->url = ev->url;
	ie->referrer = ev->referrer;
	ie->consent = ev->consent;
	ie->client_ts = ev->ts;
	ie->key_id = r->conf->master_key_id;
	p->addrlen = addr_key(r->client_addr, p->addr);
	/* contacts only on a capture; kept only when they normalise */
	if (strcmp(ev->type, "capture") == 0 &&
	    (!site->explicit_consent || ev->consent == 1)) {
		if (ev->tel != NULL &&
		    contact_tel_normalize(ev->tel, tel, &kind)) {
			ie->tel_sealed_len = pii_seal(r->conf->master_key,
			    "ingest",
			    p->id, "tel", tel, p->ts);
			ie->tel_sealed = p->ts;
			sodium_memzero(tel, sizeof(tel));
		}
		if (ev->email != NULL &&
		    contact_email_normalize(ev->email, email)) {
			ie->email_sealed_len = pii_seal(r->conf->master_key,
			    "ingest",
			    p->id, "email", email, p->es);
			ie->email_sealed = p->es;
			sodium_memzero(email, sizeof(email));
		}
		p->contact = ie->tel_sealed != NULL || ie->email_sealed != NULL;
	}
	source_keys(r->conf, p);
	return true;
}

/*
 * The CORS preflight (the tag itself sends text/plain beacons, which need
 * none): allowed for an origin on a site's domain or one of its
 * subdomains, and for no other (issue 11).  No body is read here, so the
 * site is not known: any site's domain will do.
 */
enum fb_err
tag_preflight(struct req *r)
{
	struct url_loc	*o;
	bool		 known = false;

	if (r->origin != NULL && (o = malloc(sizeof(*o))) != NULL) {
		if (url_parse(r->origin, o) && db_ensure(r->db) == FB_OK &&
		    db_site_domain_known(r->db, o->hostname, &known) != FB_OK)
			known = false;
		free(o);
	}
	if (known) {
		cors(r, NULL);
		req_header(r, "Access-Control-Allow-Methods", "POST");
		req_header(r, "Access-Control-Allow-Headers", "Content-Type");
		req_header(r, "Access-Control-Max-Age", "86400");
	} else
		req_header(r, "Vary", "Origin");
	req_empty(r, 204);
	return FB_OK;
}

static void
pending_free(struct tag_pending *p)
{
	json_object_put(p->o);
	free(p);
}

struct tag_pending *
tag_collect_begin(struct req *r)
{
	struct tag_pending	*p;
	enum fb_err		 e = FB_OK;

	if (r->body_too_large || r->body.len > EVENT_BODY_MAX) {
		(void)api_error(r, AC_BODY_TOO_LARGE, NULL);
		return NULL;
	}
	if ((p = calloc(1, sizeof(*p))) == NULL) {
		(void)api_error(r, AC_INTERNAL, NULL);
		return NULL;
	}
	if ((p->o = json_parse_object(r->body.data, r->body.len,
	    EVENT_DEPTH)) == NULL) {
		pending_free(p);
		(void)api_error(r, AC_INVALID_JSON, "body");
		return NULL;
	}
	if (event_parse(r, p->o, &p->ev)) {
		/* no connection to be had: 503, as for the API */
		if (db_ensure(r->db) != FB_OK)
			e = FB_EGONE;
		else if (prepare(r, p, &e))
			return p;
	}
	if (e != FB_OK)
		tag_collect_end(r, NULL, e);
	pending_free(p);
	return NULL;
}

/* The events of the batch within the limits, filed with one statement. */
static enum fb_err
file_events(struct db *db, struct tag_pending **ps, size_t n)
{
	const struct ingest_event *evs[INGEST_ADD_MAX];
	size_t			 i, nev;

	for (i = nev = 0; i < n; i++) {
		if (ps[i]->refused)
			logx(LOG_INFO,
			    "tag event refused: site %s past a limit of "
			    "the hour", ps[i]->site);
		else
			evs[nev++] = &ps[i]->ie;
	}
	return db_ingest_add(db, evs, nev);
}

/*
 * The abuse limits' counts (formback.fcgi(8) "Abuse limits"), per site
 * and UTC hour.
 *
 * Pooled: a worker counts what it takes in memory and, at most once a
 * second, adds it to its own shard of the counter in MariaDB and reads
 * the sum over every worker and host (flood_sync()), so that filing
 * costs no statement more.  Events per client address are counted so,
 * and no address gets past that limit by more than what the workers take
 * in a second.
 *
 * Exact: a burst is over within that second, so captures with a contact,
 * per client address and per its network, are counted one by one, in
 * the transaction that files them, on one row per counter that it holds
 * to its commit (file_exact()): every worker and host counts them one
 * after another and none is taken past the limit.  Once a worker has
 * read a counter at its limit, it refuses the source's captures for the
 * rest of the hour without a statement.
 *
 * Only far from a limit that high (CHEAP_LIMIT: in effect none, as a
 * bench sets it) are captures pooled too: while a source's pooled count
 * is CHEAP_MARGIN below its limit, a worker takes up to CHEAP_MAX of its
 * captures a second unseen by the others.  With at most FLOOD_SHARDS
 * workers taking as many, what the others do not see of them is under
 * CHEAP_MARGIN when the count turns exact, and as much again while their
 * pooled counts are a second old: no source gets past its limit by more
 * than two CHEAP_MARGINs, a tenth of CHEAP_LIMIT.
 */
#define FLOOD_LOCAL	1024	/* sources a worker keeps count of */
#define OVER_LOCAL	256	/* sources a worker knows are past a limit */
/* captures a worker pools per source a second */
#define CHEAP_MAX	1024
#define CHEAP_MARGIN	(FLOOD_SHARDS * CHEAP_MAX)
#define CHEAP_LIMIT	(20 * CHEAP_MARGIN)

/* A source's pooled counts: a client address's, or its network's. */
struct flood_count {
	char		 site[UUID_STRLEN + 1];
	unsigned char	 addr[16];
	size_t		 addrlen;
	char		 hour[20];	/* "YYYY-MM-DD HH:00:00", UTC */
	long long	 db_events;	/* every shard, last read */
	long long	 db_captures;	/* the pooled shards, last read */
	long long	 events, captures;	/* taken here since */
};

/* A source (site, address or network key) past its capture limit. */
struct flood_over {
	char		 site[UUID_STRLEN + 1];
	unsigned char	 key[16];
	size_t		 keylen;
	char		 hour[20];
};

static struct flood_count	 counts[FLOOD_LOCAL];
static size_t			 ncounts;
static time_t			 synced;	/* CLOCK_MONOTONIC seconds */
static struct flood_over	 overs[OVER_LOCAL];
static unsigned			 nover;

/* This hour's count of (site, address), made when it is new. */
static struct flood_count *
flood_count(const char *site, const unsigned char *addr, size_t addrlen,
    const char *hour)
{
	struct flood_count	*f;
	size_t			 i;

	for (i = 0; i < ncounts; i++) {
		f = &counts[i];
		if (f->addrlen == addrlen &&
		    memcmp(f->addr, addr, addrlen) == 0 &&
		    strcmp(f->site, site) == 0) {
			if (strcmp(f->hour, hour) != 0) {
				/* a new hour: its counts begin again */
				snprintf(f->hour, sizeof(f->hour), "%s", hour);
				f->db_events = f->db_captures = 0;
				f->events = f->captures = 0;
			}
			return f;
		}
	}
	if (ncounts == FLOOD_LOCAL)
		return NULL;
	f = &counts[ncounts++];
	snprintf(f->site, sizeof(f->site), "%s", site);
	memcpy(f->addr, addr, addrlen);
	f->addrlen = addrlen;
	snprintf(f->hour, sizeof(f->hour), "%s", hour);
	f->db_events = f->db_captures = f->events = f->captures = 0;
	return f;
}

/* Is (site, key) known to be past its capture limit in this hour? */
static bool
flood_over(const char *site, const unsigned char *key, size_t keylen,
    const char *hour)
{
	unsigned	 i;

	for (i = 0; i < nover && i < OVER_LOCAL; i++)
		if (overs[i].keylen == keylen &&
		    memcmp(overs[i].key, key, keylen) == 0 &&
		    strcmp(overs[i].site, site) == 0 &&
		    strcmp(overs[i].hour, hour) == 0)
			return true;
	return false;
}

/*
 * Add what this worker took since the last time to MariaDB and read the
 * sums back; forget what is of past hours or was not seen since.  A
 * failure keeps the counts here for the next time.
 */
static enum fb_err
flood_sync(struct db *db, const char *hour)
{
	struct flood_row	 rows[FLOOD_ROWS_MAX];
	struct flood_count	*f;
	size_t			 i, j, k, n;
	enum fb_err		 e = FB_OK;

	for (i = 0; i < ncounts && e == FB_OK; i += n) {
		for (n = 0; i + n < ncounts && n < FLOOD_ROWS_MAX; n++) {
			f = &counts[i + n];
			rows[n] = (struct flood_row){ f->site, f->hour,
			    f->addr, f->addrlen, (int)f->events,
			    (int)f->captures, 0, 0 };
		}
		if ((e = db_tag_flood_count(db, (unsigned)getpid(), rows,
		    n)) != FB_OK)
			break;
		for (j = 0; j < n; j++) {
			f = &counts[i + j];
			f->db_events = rows[j].events_total;
			f->db_captures = rows[j].captures_total;
			f->events = f->captures = 0;
		}
	}
	if (e != FB_OK)
		return e;
	/* the counts of past hours are of no more use */
	for (i = k = 0; i < ncounts; i++)
		if (strcmp(counts[i].hour, hour) == 0)
			counts[k++] = counts[i];
	ncounts = k;
	return FB_OK;
}

/*
 * May capture p be taken on the pooled counts of its address `a` and
 * network `n` (NULL: not kept)?  Only far from limits high enough
 * (CHEAP_LIMIT), and CHEAP_MAX a worker a second; counted if so.
 */
static bool
flood_cheap(const struct conf *c, struct flood_count *a, struct flood_count *n)
{
	if (a == NULL || n == NULL || c->tag_captures_per_hour < CHEAP_LIMIT ||
	    c->tag_network_captures_per_hour < CHEAP_LIMIT ||
	    a->captures >= CHEAP_MAX || n->captures >= CHEAP_MAX ||
	    a->db_captures + a->captures + CHEAP_MARGIN >=
	    c->tag_captures_per_hour ||
	    n->db_captures + n->captures + CHEAP_MARGIN >=
	    c->tag_network_captures_per_hour)
		return false;
	a->captures++;
	n->captures++;
	return true;
}

/*
 * Decide, event by event in arrival order, which pass the events limit
 * of their site and client address in this hour (refused events count
 * too: a flood keeps being refused for the rest of the hour), and which
 * captures with a contact are refused at once (their address or network
 * known past its limit), taken far from their limits (pooled), or to be
 * counted one by one (exact).
 */
static void
flood_check(const struct conf *c, struct tag_pending **ps, size_t n,
    const char *hour)
{
	struct tag_pending	*p;
	struct flood_count	*f, *net;
	size_t			 i;

	for (i = 0; i < n; i++) {
		p = ps[i];
		p->exact = false;
		f = net = NULL;
		if (p->addrlen == 0)
			continue;	/* no address: nothing to count by */
		f = flood_count(p->site, p->addr, p->addrlen, hour);
		if (f != NULL) {
			f->events++;
			p->refused = f->db_events + f->events >
			    c->tag_events_per_hour;
		}
		if (p->refused || !p->contact)
			continue;
		p->refused = flood_over(p->site, p->addr, p->addrlen, hour) ||
		    flood_over(p->site, p->addr, net_len(p->addrlen), hour);
		/* a network is counted here only where it may be pooled */
		if (!p->refused && c->tag_captures_per_hour >= CHEAP_LIMIT)
			net = flood_count(p->site, p->addr, net_len(p->addrlen),
			    hour);
		p->exact = !p->refused && !flood_cheap(c, f, net);
	}
}

/*
 * A batch's exact counts (file_exact()): each counter once, the
 * captures it adds, the first event that counts on it, and its limit.
 */
struct exact_key {
	/* first: flood_exact_cmp() sorts these */
	struct flood_exact	 x;
	struct tag_pending	*first;
	const char		*kind;	/* "address" or "network" */
	long long		 limit;
	long long		 pooled;	/* taken on the pooled counts */
	long long		 at;		/* the count so far, both */
};

struct exact_batch {
	const struct conf	*conf;
	struct tag_pending	**ps;
	size_t			 n;
	struct exact_key	 keys[2 * INGEST_ADD_MAX];
	size_t			 nkeys;
	/* of the counts, the database's */
	char			 hour[20];
	const char		*hour_here;	/* this host's */
};

/* The key of kind k (0 address, 1 network) of p in the batch, or NULL. */
static struct exact_key *
exact_find(struct exact_batch *b, const struct tag_pending *p, int k)
{
	struct exact_key	*x;
	size_t			 len = k == 0 ? p->addrlen :
	    net_len(p->addrlen);
	size_t			 i;

	for (i = 0; i < b->nkeys; i++) {
		x = &b->keys[i];
		if (x->x.keylen == len && memcmp(x->x.key, p->addr, len) == 0 &&
		    strcmp(x->x.site, p->site) == 0)
			return x;
	}
	return NULL;
}

/* One more capture on the key of kind k of p, made when it is new. */
static void
exact_add(struct exact_batch *b, struct tag_pending *p, int k)
{
	struct exact_key	*x;
	struct flood_count	*f;
	size_t			 len = k == 0 ? p->addrlen :
	    net_len(p->addrlen);

	if ((x = exact_find(b, p, k)) != NULL) {
		x->x.add++;
		return;
	}
	x = &b->keys[b->nkeys++];
	*x = (struct exact_key){ { p->site, p->addr, len, 1, 0 }, p,
	    k == 0 ? "address" : "network", k == 0 ?
	    b->conf->tag_captures_per_hour :
	    b->conf->tag_network_captures_per_hour, 0, 0 };
	/* what the pooled counts took, as far as this worker knows */
	if (x->limit >= CHEAP_LIMIT &&
	    (f = flood_count(p->site, p->addr, len, b->hour_here)) != NULL)
		x->pooled = f->db_captures + f->captures;
}

/* Key x reached its limit in this batch: its source's leads quarantined. */
static enum fb_err
exact_trip(struct db *db, const struct exact_batch *b,
    const struct exact_key *x)
{
	struct flood_trip	 t;
	struct tag_pending	*p = x->first;
	char			 shown[64], id[UUID_STRLEN + 1];
	bool			 open;

	source_text(x->x.key, x->x.keylen, shown);
	memset(&t, 0, sizeof(t));
	t.s = (struct flood_src){ p->tenant, p->site, b->hour, x->kind,
	    x->x.keylen == p->addrlen ? p->src_addr : p->src_net,
	    PII_BIDXBYTES };
	t.shown = shown;
	t.domain = p->domain;
	t.threshold = x->limit;
	t.count = x->x.total;
	return flood_trip(db, &t, 0, id, &open);
}

/* Count the batch's exact captures: which pass, which trip a source. */
static enum fb_err
exact_count(struct db *db, struct exact_batch *b)
{
	struct tag_pending	*p;
	struct exact_key	*a, *net;
	size_t			 i, k;
	enum fb_err		 e = FB_OK;

	b->nkeys = 0;
	for (i = 0; i < b->n; i++)
		if (b->ps[i]->exact) {
			exact_add(b, b->ps[i], 0);
			exact_add(b, b->ps[i], 1);
		}
	/* one order for every transaction's row locks */
	qsort(b->keys, b->nkeys, sizeof(b->keys[0]), flood_exact_cmp);
	for (i = 0; i < b->nkeys && e == FB_OK; i += FLOOD_EXACT_MAX) {
		struct flood_exact x[FLOOD_EXACT_MAX];

		for (k = 0; k < FLOOD_EXACT_MAX && i + k < b->nkeys; k++)
			x[k] = b->keys[i + k].x;
		if ((e = db_tag_flood_exact(db, x, k, b->hour)) != FB_OK)
			break;
		for (k = 0; k < FLOOD_EXACT_MAX && i + k < b->nkeys; k++) {
			b->keys[i + k].x.total = x[k].total +
			    b->keys[i + k].pooled;
			b->keys[i + k].at = b->keys[i + k].x.total - x[k].add;
		}
	}
	/* in arrival order: those the counts before them leave room for */
	for (i = 0; i < b->n && e == FB_OK; i++) {
		if (!(p = b->ps[i])->exact)
			continue;
		a = exact_find(b, p, 0);
		net = exact_find(b, p, 1);
		p->refused = ++a->at > a->limit || ++net->at > net->limit;
	}
	/*
	 * a source trips as it reaches its limit: the lead of the capture
	 * that reached it is applied after the trip, so that none of its
	 * leads is ever counted among the site's hour past the trip, and a
	 * flood from one address cannot take its site past a ceiling as
	 * high as the limit
	 */
	for (i = 0; i < b->nkeys && e == FB_OK; i++)
		if (b->keys[i].x.total >= b->keys[i].limit &&
		    b->keys[i].x.total - b->keys[i].x.add < b->keys[i].limit)
			e = exact_trip(db, b, &b->keys[i]);
	return e;
}

/*
 * One transaction (db_tx(), run again from scratch on a deadlock): the
 * batch's exact counts, its trips, and the events within the limits
 * filed.
 */
static enum fb_err
file_exact(struct db *db, void *arg)
{
	struct exact_batch	*b = arg;
	enum fb_err		 e;

	if ((e = exact_count(db, b)) != FB_OK)
		return e;
	return file_events(db, b->ps, b->n);
}

/*
 * What the exact counts of a filed batch tell: the sources at their
 * limit, whose next capture of the hour is refused.
 */
static void
exact_over(const struct exact_batch *b, const char *hour)
{
	const struct exact_key	*x;
	struct flood_over	*o;
	size_t			 i;

	for (i = 0; i < b->nkeys; i++) {
		x = &b->keys[i];
		if (x->x.total < x->limit ||
		    flood_over(x->x.site, x->x.key, x->x.keylen, hour))
			continue;
		o = &overs[nover++ % OVER_LOCAL];
		snprintf(o->site, sizeof(o->site), "%s", x->x.site);
		memcpy(o->key, x->x.key, x->x.keylen);
		o->keylen = x->x.keylen;
		snprintf(o->hour, sizeof(o->hour), "%s", hour);
	}
}

enum fb_err
tag_collect_file(struct db *db, const struct conf *c, struct tag_pending **ps,
    size_t n)
{
	struct exact_batch	*b;
	char			 hour[20];
	size_t			 i;
	time_t			 now = time(NULL), mono = mono_now();
	struct tm		 tm;
	bool			 exact = false;
	enum fb_err		 e;

	if (n == 0)
		return FB_OK;
	if (n > INGEST_ADD_MAX)
		return FB_EINVAL;
	gmtime_r(&now, &tm);
	strftime(hour, sizeof(hour), "%Y-%m-%d %H:00:00", &tm);
	flood_check(c, ps, n, hour);
	if ((mono != synced || ncounts == FLOOD_LOCAL) &&
	    flood_sync(db, hour) == FB_OK) {
		synced = mono;
		/* too many to look through: they are in MariaDB, start again */
		if (ncounts >= FLOOD_LOCAL / 2)
			ncounts = 0;
	}
	for (i = 0; i < n; i++)
		exact = exact || ps[i]->exact;
	/* no capture to count: one autocommitted statement, as ever */
	if (!exact) {
		if ((e = file_events(db, ps, n)) == FB_ERETRY)
			e = file_events(db, ps, n);
		return e;
	}
	if ((b = calloc(1, sizeof(*b))) == NULL)
		return FB_ENOMEM;
	*b = (struct exact_batch){ .conf = c, .ps = ps, .n = n,
	    .hour_here = hour };
	if ((e = db_tx(db, file_exact, b)) == FB_OK)
		exact_over(b, hour);
	free(b);
	return e;
}

void
tag_collect_end(struct req *r, struct tag_pending *p, enum fb_err e)
{
	bool		 refused = p != NULL && p->refused;
	char		 wait[16];
	time_t		 t = time(NULL);

	if (p != NULL)
		pending_free(p);
	if (e == FB_OK && refused) {
		/* the counts are of the hour: until the next one */
		snprintf(wait, sizeof(wait), "%lld",
		    (long long)(3600 - t % 3600));
		req_header(r, "Retry-After", wait);
		(void)api_error(r, AC_RATE_LIMIT, NULL);
		return;
	}
	if (e == FB_OK) {
		req_empty(r, 204);
		return;
	}
	logx(LOG_ERR, "tag event failed: %s", fb_strerror(e));
	(void)api_error(r, e == FB_EGONE || e == FB_ERETRY ? AC_UNAVAILABLE :
	    AC_INTERNAL, NULL);
}
