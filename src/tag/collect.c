/*
 * The page tag's event collector (design 3): validation with caps, CORS
 * for the site's domain, raw events kept for the reports, and the lead
 * life cycle -- a capture updates the visitor's open lead of that
 * campaign (one per site, campaign and visitor while it is started or
 * captured); a conversion on a thanks page converts the visitor's lead of
 * that campaign (tag), the visitor's leads of other campaigns
 * (tag_visitor) and the leads of the same contact (hash_match).  Contacts
 * are normalised, sealed, blind-indexed and masked before they reach the
 * database; no clear contact is logged, stored or echoed.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <sodium.h>

#include "../api.h"
#include "../match.h"
#include "../pii.h"
#include "../store.h"

#define EVENT_BODY_MAX	16384
#define EVENT_DEPTH	6
#define TX_TRIES	3

struct event {
	char		 url_buf[URL_MAX + 1], ref_buf[URL_MAX + 1];
	const char	*site, *visitor, *session, *type, *url, *referrer;
	const char	*campaign, *role, *tel, *email;
	int		 consent;	/* -1 not given */
	long long	 ts;
	struct url_loc	 loc;
};

static void	url_scrub(const char *, char *, size_t);

static bool
id_ok(const char *s)
{
	size_t	 n = strlen(s);

	return n >= 8 && n <= 36 &&
	    strspn(s, "0123456789abcdefABCDEF-") == n;
}

/* A string field: NULL when absent or null; false when wrong. */
static bool
field(json_object *o, const char *k, size_t max, bool required, const char **out)
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

/* Parse and check the body; on failure writes the 400 naming the field. */
static bool
event_parse(struct req *r, json_object *o, struct event *ev)
{
	json_object	*v, *c;

	memset(ev, 0, sizeof(*ev));
	ev->consent = -1;
	if (!json_object_object_get_ex(o, "v", &v) || !json_object_is_type(v, json_type_int) ||
	    json_object_get_int(v) != 1)
		return api_error(r, AC_EVENT_INVALID, "v"), false;
	if (!field(o, "site", 64, true, &ev->site))
		return api_error(r, AC_EVENT_INVALID, "site"), false;
	if (!field(o, "visitor", 36, true, &ev->visitor) || !id_ok(ev->visitor))
		return api_error(r, AC_EVENT_INVALID, "visitor"), false;
	if (!field(o, "session", 36, true, &ev->session) || !id_ok(ev->session))
		return api_error(r, AC_EVENT_INVALID, "session"), false;
	if (!field(o, "type", 16, true, &ev->type) ||
	    (strcmp(ev->type, "page_view") != 0 && strcmp(ev->type, "form_start") != 0 &&
	    strcmp(ev->type, "capture") != 0 && strcmp(ev->type, "consent") != 0 &&
	    strcmp(ev->type, "conversion") != 0))
		return api_error(r, AC_EVENT_INVALID, "type"), false;
	if (!field(o, "url", URL_MAX, true, &ev->url) || !url_parse(ev->url, &ev->loc))
		return api_error(r, AC_EVENT_INVALID, "url"), false;
	url_scrub(ev->url, ev->url_buf, sizeof(ev->url_buf));
	ev->url = ev->url_buf;
	if (!url_parse(ev->url, &ev->loc))
		return api_error(r, AC_EVENT_INVALID, "url"), false;
	if (!field(o, "referrer", URL_MAX, false, &ev->referrer))
		return api_error(r, AC_EVENT_INVALID, "referrer"), false;
	if (ev->referrer != NULL && *ev->referrer == '\0')
		ev->referrer = NULL;
	if (ev->referrer != NULL) {
		url_scrub(ev->referrer, ev->ref_buf, sizeof(ev->ref_buf));
		ev->referrer = ev->ref_buf;
	}
	if (!field(o, "campaign", 64, false, &ev->campaign))
		return api_error(r, AC_EVENT_INVALID, "campaign"), false;
	if (!field(o, "role", 16, false, &ev->role) ||
	    (ev->role != NULL && rule_role_parse(ev->role) < 0))
		return api_error(r, AC_EVENT_INVALID, "role"), false;
	if (json_object_object_get_ex(o, "contact", &c) && c != NULL) {
		if (!json_object_is_type(c, json_type_object))
			return api_error(r, AC_EVENT_INVALID, "contact"), false;
		if (!field(c, "tel", 64, false, &ev->tel))
			return api_error(r, AC_EVENT_INVALID, "contact.tel"), false;
		if (!field(c, "email", 254, false, &ev->email))
			return api_error(r, AC_EVENT_INVALID, "contact.email"), false;
	}
	if (json_object_object_get_ex(o, "consent", &v) && v != NULL) {
		if (!json_object_is_type(v, json_type_boolean))
			return api_error(r, AC_EVENT_INVALID, "consent"), false;
		ev->consent = json_object_get_boolean(v);
	}
	if (json_object_object_get_ex(o, "ts", &v) && v != NULL) {
		if (!json_object_is_type(v, json_type_int) &&
		    !json_object_is_type(v, json_type_double))
			return api_error(r, AC_EVENT_INVALID, "ts"), false;
		ev->ts = json_object_get_int64(v);
	}
	return true;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Does a query parameter carry a contact?  Its name, or its decoded value. */
static bool
contact_like(const char *name, size_t nn, const char *val, size_t vn)
{
	static const char *const names[] = { "tel", "phone", "mail", "denwa",
	    "keitai", "mobile", "contact" };
	char		 n[64], v[512], norm[256];
	size_t		 i, o;
	enum tel_kind	 k;

	for (i = 0; i < nn && i + 1 < sizeof(n); i++)
		n[i] = (char)tolower((unsigned char)name[i]);
	n[i] = '\0';
	for (i = 0; i < NELEM(names); i++)
		if (strstr(n, names[i]) != NULL)
			return true;
	for (i = o = 0; i < vn && o + 1 < sizeof(v); i++) {
		if (val[i] == '%' && i + 2 < vn && hexval((unsigned char)val[i + 1]) >= 0 &&
		    hexval((unsigned char)val[i + 2]) >= 0) {
			v[o++] = (char)(hexval((unsigned char)val[i + 1]) << 4 |
			    hexval((unsigned char)val[i + 2]));
			i += 2;
		} else
			v[o++] = val[i] == '+' ? ' ' : val[i];
	}
	v[o] = '\0';
	return strchr(v, '@') != NULL || contact_tel_normalize(v, norm, &k) ||
	    contact_email_normalize(v, norm);
}

/*
 * A page URL without the query parameters that carry contacts (a form
 * sent by GET puts them there): no clear contact reaches the database or
 * the logs through a URL.
 */
static void
url_scrub(const char *in, char *out, size_t outsz)
{
	const char	*q = strchr(in, '?'), *p, *amp, *eq;
	size_t		 o, n;
	bool		 first = true;

	if (q == NULL) {
		snprintf(out, outsz, "%s", in);
		return;
	}
	o = (size_t)snprintf(out, outsz, "%.*s", (int)(q - in), in);
	for (p = q + 1; *p != '\0' && *p != '#'; p = *amp == '&' ? amp + 1 : amp) {
		amp = p + strcspn(p, "&#");
		n = (size_t)(amp - p);
		eq = memchr(p, '=', n);
		if (n > 0 && !contact_like(p, eq != NULL ? (size_t)(eq - p) : n,
		    eq != NULL ? eq + 1 : p + n, eq != NULL ? (size_t)(amp - eq - 1) : 0) &&
		    o + n + 2 < outsz) {
			out[o++] = first ? '?' : '&';
			memcpy(out + o, p, n);
			o += n;
			out[o] = '\0';
			first = false;
		}
		if (*amp == '\0' || *amp == '#')
			break;
	}
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
		return true;	/* sendBeacon from a page always sends one; curl not */
	if ((h = strstr(origin, "://")) == NULL)
		return false;
	h += 3;
	e = h + strcspn(h, ":/");
	return host_of_site(h, (size_t)(e - h), domain);
}

static enum fb_err
outbox_lead(struct req *r, const char *tenant, const char *type, json_object *data)
{
	enum fb_err	 e = db_outbox_add(r->db, tenant, "webhook", type, json_text(data));

	json_object_put(data);
	return e;
}

static void
utm_from(const char *search, char *out, size_t outsz)
{
	static const char *const keys[] = { "utm_source", "utm_medium",
	    "utm_campaign", "utm_term", "utm_content" };
	json_object	*o = json_object_new_object();
	const char	*p, *amp, *eq;
	char		 name[32], val[256];
	size_t		 i, n, k, vn;

	for (p = *search == '?' ? search + 1 : search; *p != '\0'; p = amp + 1) {
		amp = p + strcspn(p, "&");
		n = (size_t)(amp - p);
		eq = memchr(p, '=', n);
		if (eq != NULL && (size_t)(eq - p) < sizeof(name)) {
			snprintf(name, sizeof(name), "%.*s", (int)(eq - p), p);
			for (k = 0; k < NELEM(keys); k++)
				if (strcmp(name, keys[k]) == 0) {
					vn = (size_t)(amp - eq - 1);
					if (vn >= sizeof(val))
						vn = sizeof(val) - 1;
					for (i = 0; i < vn; i++)
						val[i] = eq[1 + i] == '+' ? ' ' : eq[1 + i];
					val[vn] = '\0';
					jadd_str(o, keys[k], val);
				}
		}
		if (*amp == '\0')
			break;
	}
	snprintf(out, outsz, "%s", json_text(o));
	json_object_put(o);
}

/* The visitor's open lead of the campaign into id, if any (*found). */
static enum fb_err
find_lead(struct req *r, const char *site, const char *campaign,
    const struct event *ev, char id[UUID_STRLEN + 1], bool *was_captured,
    bool *found)
{
	struct dbres	 l;
	unsigned	 i, n = 0;
	enum fb_err	 e;

	*was_captured = *found = false;
	if ((e = db_lead_find_open(r->db, site, ev->visitor, campaign, &l)) != FB_OK)
		return e;
	if (l.nrows >= 1) {
		/* the newest (UUIDv7 ids sort by time) */
		for (i = 1; i < l.nrows; i++)
			if (strcmp(dbres_get(&l, i, 0), dbres_get(&l, n, 0)) > 0)
				n = i;
		snprintf(id, UUID_STRLEN + 1, "%s", dbres_get(&l, n, 0));
		*was_captured = strcmp(dbres_get(&l, n, 1), "captured") == 0;
		*found = true;
	}
	dbres_free(&l);
	return FB_OK;
}

/*
 * A new lead `id` for the visitor, its landing page the session's first
 * page view; captured at once with the contacts `c` when not NULL.
 */
static enum fb_err
create_lead(struct req *r, const char *tenant, const char *site,
    const char *campaign, const struct event *ev, const char *id,
    const struct lead_contact *c)
{
	struct dbres	 land;
	struct url_loc	 ll;
	char		 utm[2048];
	const char	*landing = ev->url, *ref = ev->referrer, *lp;
	enum fb_err	 e;

	if ((e = db_lead_landing(r->db, site, ev->session, &land)) != FB_OK)
		return e;
	if (land.nrows == 1) {
		landing = dbres_get(&land, 0, 0);
		ref = dbres_get(&land, 0, 1);
	}
	if (!url_parse(landing, &ll))
		ll = ev->loc;
	utm_from(ll.search, utm, sizeof(utm));
	lp = ll.pathname;
	e = db_lead_insert(r->db, id, tenant, site, campaign, ev->visitor,
	    ev->session, landing, ref, utm, lp, c);
	dbres_free(&land);
	return e;
}

/* The visitor's open lead of the campaign, created when there is none. */
static enum fb_err
open_lead(struct req *r, const char *tenant, const char *site,
    const char *campaign, const struct event *ev, char id[UUID_STRLEN + 1],
    bool *was_captured)
{
	bool		 found;
	enum fb_err	 e;

	if ((e = find_lead(r, site, campaign, ev, id, was_captured, &found)) != FB_OK ||
	    found)
		return e;
	uuid_v7(id);
	return create_lead(r, tenant, site, campaign, ev, id, NULL);
}

/* Seal, index and mask what the capture carries, and store it. */
static enum fb_err
capture(struct req *r, const char *tenant, const char *site, const char *campaign,
    const char *consent_mode, const struct event *ev, char lead[UUID_STRLEN + 1])
{
	char		 tel[16], email[256], tmask[32], emask[300];
	unsigned char	 ts[PII_SEALED_MAX(16)], es[PII_SEALED_MAX(256)];
	unsigned char	 tb[PII_BIDXBYTES], eb[PII_BIDXBYTES];
	struct lead_contact c;
	enum tel_kind	 kind;
	bool		 has_tel, has_email, was, found;
	json_object	*d, *ch;
	enum fb_err	 e;

	has_tel = ev->tel != NULL && contact_tel_normalize(ev->tel, tel, &kind);
	has_email = ev->email != NULL && contact_email_normalize(ev->email, email);
	if (!has_tel && !has_email)
		return FB_OK;
	/* explicit consent: nothing is kept without it */
	if (strcmp(consent_mode, "explicit") == 0 && ev->consent != 1)
		return FB_OK;
	/* the id first: it is the sealed contacts' associated data */
	if ((e = find_lead(r, site, campaign, ev, lead, &was, &found)) != FB_OK)
		return e;
	if (!found)
		uuid_v7(lead);
	memset(&c, 0, sizeof(c));
	c.consent_state = consent_mode;
	c.session = ev->session;
	c.key_id = r->conf->master_key_id;
	if (has_tel) {
		c.tel_sealed_len = pii_seal(r->conf->master_key, tenant, lead, "tel", tel, ts);
		c.tel_sealed = ts;
		pii_blind_index(r->conf->master_key, tenant, "tel", tel, tb);
		c.tel_bidx = tb;
		contact_tel_mask(tel, tmask);
		c.tel_masked = tmask;
		c.tel_kind = tel_kind_names[kind];
	}
	if (has_email) {
		c.email_sealed_len = pii_seal(r->conf->master_key, tenant, lead, "email", email, es);
		c.email_sealed = es;
		pii_blind_index(r->conf->master_key, tenant, "email", email, eb);
		c.email_bidx = eb;
		contact_email_mask(email, emask);
		c.email_masked = emask;
	}
	sodium_memzero(tel, sizeof(tel));
	sodium_memzero(email, sizeof(email));
	/* a new lead is inserted captured: one write instead of two */
	e = found ? db_lead_capture(r->db, lead, &c) :
	    create_lead(r, tenant, site, campaign, ev, lead, &c);
	if (e != FB_OK || was)
		return e;
	/* lead.captured (contract: Events, LeadCapturedData), first time only */
	d = json_object_new_object();
	jadd_str(d, "lead_id", lead);
	jadd_str(d, "campaign_id", campaign);
	jadd_str(d, "site_id", site);
	ch = json_object_new_array();
	if (has_tel && kind == TEL_MOBILE)
		json_object_array_add(ch, json_object_new_string("sms"));
	if (has_email)
		json_object_array_add(ch, json_object_new_string("email"));
	json_object_object_add(d, "channels", ch);
	return outbox_lead(r, tenant, "lead.captured", d);
}

static enum fb_err
convert_one(struct req *r, const char *tenant, const char *lead,
    const char *campaign, const char *site, const char *source, bool *changed)
{
	json_object	*d;
	char		 now[32];
	enum fb_err	 e;

	if ((e = db_lead_convert(r->db, lead, source, changed)) != FB_OK || !*changed)
		return e;
	/* nothing pending is sent after a conversion */
	if ((e = db_sd(r->db, SD_CONVERTED_CANCEL, DBPARAMS(P_STR(lead)), NULL)) != FB_OK)
		return e;
	time_iso8601((int64_t)time(NULL), now);
	d = json_object_new_object();
	jadd_str(d, "lead_id", lead);
	jadd_str(d, "campaign_id", campaign);
	jadd_str(d, "site_id", site);
	jadd_str(d, "conversion_source", source);
	jadd_str(d, "converted_at", now);
	return outbox_lead(r, tenant, "conversion.detected", d);
}

/* A conversion on a thanks page (design 3). */
static enum fb_err
conversion(struct req *r, const char *tenant, const char *site,
    const char *campaign, const struct event *ev)
{
	struct dbres	 v, m;
	unsigned	 i, j;
	bool		 changed;
	enum fb_err	 e;

	if ((e = db_leads_of_visitor(r->db, site, ev->visitor, &v)) != FB_OK)
		return e;
	for (i = 0; i < v.nrows && e == FB_OK; i++) {
		const char *lead = dbres_get(&v, i, 0), *cid = dbres_get(&v, i, 1);
		bool	 own = strcmp(cid, campaign) == 0;

		e = convert_one(r, tenant, lead, cid, site, own ? "tag" : "tag_visitor",
		    &changed);
		if (e != FB_OK || !own || !changed)
			continue;
		/* the same contact's other leads */
		if ((e = db_leads_of_contact(r->db, tenant, lead, &m)) != FB_OK)
			break;
		for (j = 0; j < m.nrows && e == FB_OK; j++)
			e = convert_one(r, tenant, dbres_get(&m, j, 0),
			    dbres_get(&m, j, 1), dbres_get(&m, j, 2), "hash_match",
			    &changed);
		dbres_free(&m);
	}
	dbres_free(&v);
	return e;
}

static enum fb_err
handle(struct req *r, const struct event *ev, const struct dbres *cx)
{
	struct tag_event_row	 row;
	const char		*tenant = dbres_get(cx, 0, EVC_C_TENANT);
	const char		*site = dbres_get(cx, 0, EVC_C_SITE);
	const char		*cid = dbres_get(cx, 0, EVC_C_CAMPAIGN);
	char			 lead[UUID_STRLEN + 1] = "", campaign[UUID_STRLEN + 1] = "";
	bool			 published = false, active = false, was;
	enum fb_err		 e;

	/* the campaign counts only when it is this site's and published */
	if (cid != NULL && strcmp(dbres_get(cx, 0, EVC_C_CAMPAIGN_SITE), site) == 0 &&
	    dbres_int(cx, 0, EVC_C_PUBLISHED) != 0) {
		published = true;
		active = strcmp(dbres_get(cx, 0, EVC_C_CAMPAIGN_STATUS), "active") == 0;
		snprintf(campaign, sizeof(campaign), "%s", cid);
	}
	if (active && strcmp(ev->type, "capture") == 0) {
		if ((e = capture(r, tenant, site, campaign,
		    dbres_get(cx, 0, EVC_C_CONSENT_MODE), ev, lead)) != FB_OK)
			return e;
	} else if (active && strcmp(ev->type, "form_start") == 0) {
		if ((e = open_lead(r, tenant, site, campaign, ev, lead, &was)) != FB_OK)
			return e;
	}
	/* activity delays the judgement (a capture already stamped it) */
	if (active && (strcmp(ev->type, "page_view") == 0 ||
	    strcmp(ev->type, "form_start") == 0 || strcmp(ev->type, "consent") == 0) &&
	    (e = db_lead_touch(r->db, site, ev->visitor, campaign)) != FB_OK)
		return e;
	memset(&row, 0, sizeof(row));
	row.tenant = tenant;
	row.site = site;
	row.campaign = published ? campaign : NULL;
	row.lead = lead[0] != '\0' ? lead : NULL;
	row.visitor = ev->visitor;
	row.session = ev->session;
	row.type = ev->type;
	row.role = published ? ev->role : NULL;
	row.url = ev->url;
	row.url_path = ev->loc.pathname;
	row.referrer = ev->referrer;
	row.consent = ev->consent;
	row.client_ts = ev->ts;
	if ((e = db_tag_event_insert(r->db, &row)) != FB_OK)
		return e;
	if (published && strcmp(ev->type, "conversion") == 0 && ev->role != NULL &&
	    strcmp(ev->role, "thanks") == 0)
		return conversion(r, tenant, site, campaign, ev);
	return FB_OK;
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

void
tag_collect(struct req *r)
{
	struct json_tokener	*tok;
	json_object		*o;
	struct event		 ev;
	struct dbres		 s;
	enum fb_err		 e = FB_OK;
	int			 try;

	if (strcmp(r->method, "OPTIONS") == 0) {
		cors(r, NULL);
		req_header(r, "Access-Control-Allow-Methods", "POST");
		req_header(r, "Access-Control-Allow-Headers", "Content-Type");
		req_header(r, "Access-Control-Max-Age", "86400");
		req_empty(r, 204);
		return;
	}
	if (strcmp(r->method, "POST") != 0) {
		req_header(r, "Allow", "POST, OPTIONS");
		(void)api_error(r, AC_METHOD_NOT_ALLOWED, NULL);
		return;
	}
	if (r->body_too_large || r->body.len > EVENT_BODY_MAX) {
		(void)api_error(r, AC_BODY_TOO_LARGE, NULL);
		return;
	}
	tok = json_tokener_new_ex(EVENT_DEPTH);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = r->body.len > 0 ? json_tokener_parse_ex(tok, r->body.data, (int)r->body.len) : NULL;
	if (o == NULL || json_tokener_get_error(tok) != json_tokener_success ||
	    !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		json_tokener_free(tok);
		(void)api_error(r, AC_INVALID_JSON, "body");
		return;
	}
	json_tokener_free(tok);
	if (!event_parse(r, o, &ev))
		goto out;
	if ((e = db_ensure(r->db)) != FB_OK)
		goto out;
	if ((e = db_event_context(r->db, ev.site, ev.campaign, &s)) != FB_OK)
		goto out;
	if (s.nrows != 1) {
		dbres_free(&s);
		(void)api_error(r, AC_NOT_FOUND, "site");
		goto out;
	}
	cors(r, dbres_get(&s, 0, EVC_C_DOMAIN));
	if (!origin_ok(r->origin, dbres_get(&s, 0, EVC_C_DOMAIN)) ||
	    !host_of_site(ev.loc.hostname, strlen(ev.loc.hostname),
	    dbres_get(&s, 0, EVC_C_DOMAIN))) {
		dbres_free(&s);
		(void)api_error(r, AC_ORIGIN_NOT_ALLOWED, "url");
		goto out;
	}
	for (try = 0; try < TX_TRIES; try++) {
		if ((e = db_begin(r->db)) != FB_OK)
			break;
		if ((e = handle(r, &ev, &s)) == FB_OK &&
		    (e = db_commit(r->db)) == FB_OK)
			break;
		db_rollback(r->db);
		if (e != FB_ERETRY)
			break;
	}
	dbres_free(&s);
	if (e == FB_OK)
		req_empty(r, 204);
out:
	if (e != FB_OK) {
		logx(LOG_ERR, "tag event failed: %s", fb_strerror(e));
		(void)api_error(r, e == FB_EGONE || e == FB_ERETRY ? AC_UNAVAILABLE :
		    AC_INTERNAL, NULL);
	}
	json_object_put(o);
}
