/*
 * formback.conf (design 5): "key = value" lines, '#' comments.  The
 * keys are the rows of conf_keys[]; formback.conf(5) documents the same
 * rows.  Unknown keys, bad values and missing required keys are errors
 * naming the key and the line.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "formback.h"
#include "sms.h"
#include "url.h"

#ifndef SYSCONFDIR
#define SYSCONFDIR "/usr/local/etc"
#endif

enum conf_type {
	CT_STR,
	CT_INT,
	CT_LOGLEVEL,
	CT_BOOL,	/* yes or no */
	CT_HTTP_URL,	/* http:// or https:// and a host */
	CT_SMTP_URL,	/* smtp:// or smtps:// and a host */
	/* an address, or a name and <address>: a From header in ASCII */
	CT_MAIL_FROM,
	CT_SMS_PROVIDER, /* a name of SMS_DRIVERS (sms.h) */
	/* letters and digits (a Twilio SID: it goes into a URL) */
	CT_SID,
};

struct conf_key {
	const char	*name;
	enum conf_type	 type;
	size_t		 off;
	bool		 required;
	const char	*def;		/* default, as text; NULL: none */
	long		 min, max;	/* CT_INT bounds */
};

#define O(f) offsetof(struct conf, f)

/* The drivers' names and the keys each needs (SMS_DRIVERS, sms.h). */
#define SMS_NAME(e, name, send, receipt, keys)	name,
#define SMS_KEYS(e, name, send, receipt, keys)	keys,
static const char *const sms_names[SMS_PROVIDER__MAX] = {
	SMS_DRIVERS(SMS_NAME)
};
static const char *const sms_keys[SMS_PROVIDER__MAX] = {
	SMS_DRIVERS(SMS_KEYS)
};
#undef SMS_NAME
#undef SMS_KEYS

static const struct conf_key conf_keys[] = {
	{ "db_host", CT_STR, O(db_host), false, "127.0.0.1", 0, 0 },
	{ "db_port", CT_INT, O(db_port), false, "3306", 1, 65535 },
	{ "db_socket", CT_STR, O(db_socket), false, NULL, 0, 0 },
	{ "db_user", CT_STR, O(db_user), true,  NULL, 0, 0 },
	{ "db_password", CT_STR, O(db_password), false, "", 0, 0 },
	{ "db_password_file", CT_STR, O(db_password_file), false, NULL, 0, 0 },
	{ "db_name", CT_STR, O(db_name), true,  NULL, 0, 0 },
	{ "db_connect_timeout", CT_INT,
	    O(db_connect_timeout), false, "5", 1, 3600 },
	{ "db_read_timeout", CT_INT, O(db_read_timeout), false, "10", 1, 3600 },
	{ "db_write_timeout", CT_INT,
	    O(db_write_timeout), false, "10", 1, 3600 },
	{ "base_url", CT_HTTP_URL, O(base_url), true, NULL, 0, 0 },
	{ "publish_dir", CT_STR, O(publish_dir),
	    false, "/var/lib/formback/publish", 0, 0 },
	{ "pii_key_file", CT_STR, O(pii_key_file), true, NULL, 0, 0 },
	{ "smtp_url", CT_SMTP_URL, O(smtp_url),
	    false, "smtp://127.0.0.1:25", 0, 0 },
	{ "smtp_starttls", CT_BOOL, O(smtp_starttls), false, "no", 0, 0 },
	{ "smtp_from", CT_MAIL_FROM, O(smtp_from),
	    false, "formback@localhost", 0, 0 },
	{ "sms_gateway_url", CT_HTTP_URL,
	    O(sms_gateway_url), false, NULL, 0, 0 },
	{ "sms_gateway_token", CT_STR,
	    O(sms_gateway_token), false, NULL, 0, 0 },
	{ "sms_from", CT_STR, O(sms_from), false, "Formback", 0, 0 },
	{ "sms_provider", CT_SMS_PROVIDER,
	    O(sms_provider), false, "gateway", 0, 0 },
	{ "twilio_account_sid", CT_SID,
	    O(twilio_account_sid), false, NULL, 0, 0 },
	{ "twilio_auth_token", CT_STR,
	    O(twilio_auth_token), false, NULL, 0, 0 },
	{ "twilio_messaging_service_sid", CT_SID,
	  O(twilio_messaging_service_sid), false, NULL, 0, 0 },
	{ "twilio_api_base",	CT_HTTP_URL, O(twilio_api_base), false,
	  "https://api.twilio.com", 0, 0 },
	{ "hook_token", CT_STR, O(hook_token), false, NULL, 0, 0 },
	{ "webhook_ca_file", CT_STR, O(webhook_ca_file), false, NULL, 0, 0 },
	{ "webhook_allow_hosts", CT_STR,
	    O(webhook_allow_hosts), false, NULL, 0, 0 },
	{ "webhook_resolve", CT_STR, O(webhook_resolve), false, NULL, 0, 0 },
	{ "log_level", CT_LOGLEVEL, O(log_level), false, "info", 0, 0 },
	{ "metrics", CT_BOOL, O(metrics), false, "no", 0, 0 },
	{ "max_body_bytes", CT_INT, O(max_body_bytes),
	    false, "1048576", 1024, 16777216 },
	{ "max_json_depth", CT_INT, O(max_json_depth), false, "32", 2, 256 },
	{ "tag_events_per_hour", CT_INT,
	    O(tag_events_per_hour), false, "3600", 1, 1000000000 },
	{ "tag_captures_per_hour", CT_INT,
	    O(tag_captures_per_hour), false, "30", 1, 1000000000 },
	{ "tag_network_captures_per_hour", CT_INT,
	  O(tag_network_captures_per_hour), false, "90", 1, 1000000000 },
	{ "tag_visitor_captures", CT_INT,
	    O(tag_visitor_captures), false, "10", 1, 1000000 },
	{ "site_new_leads_floor", CT_INT,
	    O(site_new_leads_floor), false, "100", 1, 1000000000 },
	{ "site_new_leads_factor", CT_INT,
	    O(site_new_leads_factor), false, "5", 1, 1000 },
	{ "tag_event_retention_days", CT_INT,
	    O(tag_event_retention_days), false, "400", 0, 36500 },
	{ "audit_retention_days", CT_INT,
	    O(audit_retention_days), false, "730", 0, 36500 },
	{ "link_retention_days", CT_INT,
	    O(link_retention_days), false, "400", 0, 36500 },
};

const char *
conf_default_path(void)
{
	const char	*e = getenv("FORMBACK_CONF");

	return e != NULL && *e != '\0' ? e :
	    SYSCONFDIR "/formback/formback.conf";
}

/*
 * smtp:// or smtps:// and a host, with no space or control character
 * (libcurl reads the rest); an http(s) URL is read by url_parse().
 */
static bool
smtp_url_ok(const char *v)
{
	const char	*h, *p;

	if (strncmp(v, "smtp://", 7) == 0)
		h = v + 7;
	else if (strncmp(v, "smtps://", 8) == 0)
		h = v + 8;
	else
		return false;
	if (*h == '\0' || *h == '/' || *h == ':')
		return false;
	for (p = v; *p != '\0'; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			return false;
	return true;
}

static enum fb_err
conf_set(struct conf *c, const struct conf_key *k, const char *v,
    char *err, size_t errsz, int line)
{
	char		*end, href[URL_MAX + 1];
	long		 n;
	size_t		 i;
	enum log_level	 lvl;

	switch (k->type) {
	case CT_HTTP_URL:
	case CT_SMTP_URL:
		if (k->type == CT_HTTP_URL ? !url_normalize(v, href) ||
		    strcspn(v, " \t\r\n") != strlen(v) : !smtp_url_ok(v)) {
			snprintf(err, errsz, "key '%s' at line %d: expected a "
			    "URL %s", k->name, line, k->type == CT_HTTP_URL ?
			    "http://host... or https://host..." :
			    "smtp://host:port or smtps://host:port");
			return FB_ECONF;
		}
		/* FALLTHROUGH */
	case CT_SID:
		if (k->type == CT_SID && strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "abcdefghijklmnopqrstuvwxyz0123456789") != strlen(v)) {
			snprintf(err, errsz, "key '%s' at line %d: expected "
			    "letters and digits", k->name, line);
			return FB_ECONF;
		}
		/* FALLTHROUGH */
	case CT_MAIL_FROM:
		/*
		 * the From header is written as given: never a header it breaks
		 */
		if (k->type == CT_MAIL_FROM && (strchr(v, '@') == NULL ||
		    !header_ok("From", v))) {
			snprintf(err, errsz, "key '%s' at line %d: expected an "
			    "address in ASCII, or a name and "
			    "<address>", k->name,
			    line);
			return FB_ECONF;
		}
		/* FALLTHROUGH */
	case CT_STR:
		free(*(char **)((char *)c + k->off));
		if ((*(char **)((char *)c + k->off) = strdup(v)) == NULL)
			return FB_ENOMEM;
		return FB_OK;
	case CT_INT:
		errno = 0;
		n = strtol(v, &end, 10);
		if (errno != 0 || *v == '\0' || *end != '\0' ||
		    n < k->min || n > k->max) {
			snprintf(err, errsz, "key '%s' at line %d: "
			    "expected an integer from %ld to %ld", k->name,
			    line, k->min, k->max);
			return FB_ECONF;
		}
		*(int *)((char *)c + k->off) = (int)n;
		return FB_OK;
	case CT_BOOL:
		if (strcmp(v, "yes") != 0 && strcmp(v, "no") != 0) {
			snprintf(err, errsz,
			    "key '%s' at line %d: expected yes "
			    "or no", k->name, line);
			return FB_ECONF;
		}
		*(int *)((char *)c + k->off) = strcmp(v, "yes") == 0;
		return FB_OK;
	case CT_SMS_PROVIDER:
		for (i = 0; i < SMS_PROVIDER__MAX; i++)
			if (strcmp(v, sms_names[i]) == 0)
				break;
		if (i == SMS_PROVIDER__MAX) {
			n = snprintf(err, errsz,
			    "key '%s' at line %d: expected "
			    "one of", k->name, line);
			for (i = 0; i < SMS_PROVIDER__MAX && n > 0 &&
			    (size_t)n < errsz; i++)
				n += snprintf(err + n, errsz - (size_t)n, " %s",
				    sms_names[i]);
			return FB_ECONF;
		}
		*(int *)((char *)c + k->off) = (int)i;
		return FB_OK;
	case CT_LOGLEVEL:
		if (log_level_parse(v, &lvl) != 0) {
			snprintf(err, errsz, "key '%s' at line %d: expected "
			    "error, warn, info or debug", k->name, line);
			return FB_ECONF;
		}
		*(int *)((char *)c + k->off) = (int)lvl;
		return FB_OK;
	}
	return FB_EINVAL;
}

/* One line of the key file, "[id:]64 hex", into a fresh key. */
static bool
key_line(char *line, unsigned *id, unsigned char **key)
{
	char		*p, *end;
	size_t		 n;
	unsigned long	 v = 0;

	if ((p = strchr(line, ':')) != NULL) {
		errno = 0;
		v = strtoul(line, &end, 10);
		if (end != p || end == line || errno != 0 || v > 1000000)
			return false;
		p++;
	} else
		p = line;
	n = strcspn(p, " \t\r\n");
	p[n] = '\0';
	if (n != 64 || (*key = sodium_malloc(32)) == NULL)
		return false;
	if (sodium_hex2bin(*key, 32, p, n, NULL, NULL, NULL) != 0) {
		sodium_free(*key);
		*key = NULL;
		return false;
	}
	*id = (unsigned)v;
	return true;
}

const unsigned char *
conf_master_key(const struct conf *c, unsigned id)
{
	size_t	 i;

	if (id == c->master_key_id)
		return c->master_key;
	for (i = 0; i < c->nold_keys; i++)
		if (c->old_key_ids[i] == id)
			return c->old_keys[i];
	return NULL;
}

/*
 * The key file (formback.conf(5), THE MASTER KEY): the current key on
 * the first line, earlier ones on the lines after it, each "[id:]hex";
 * blank lines and '#' comments skipped.
 */
static enum fb_err
conf_read_key(struct conf *c, char *err, size_t errsz, int at)
{
	FILE		*f;
	char		 line[256], *p;
	unsigned	 id, lowest;
	unsigned char	*key;
	size_t		 i, nlines = 0;
	int		 kline = 0;

	if ((f = fopen(c->pii_key_file, "r")) == NULL) {
		snprintf(err, errsz, "key 'pii_key_file' at line %d: cannot "
		    "open '%s': %s", at, c->pii_key_file, strerror(errno));
		return FB_ECONF;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		kline++;
		for (p = line; isspace((unsigned char)*p); p++)
			continue;
		if (*p == '\0' || *p == '#')
			continue;
		key = NULL;
		if (!key_line(p, &id, &key) || (nlines > 0 &&
		    (conf_master_key(c, id) != NULL ||
		    nlines > CONF_KEYS_MAX))) {
			if (key != NULL)
				sodium_free(key);
			sodium_memzero(line, sizeof(line));
			fclose(f);
			snprintf(err, errsz,
			    "key 'pii_key_file' at line %d: '%s' "
			    "line %d must hold 64 hex characters (32 bytes), "
			    "after an optional id and a colon, with ids not "
			    "repeated and at most %d earlier "
			    "keys", at, c->pii_key_file, kline,
			    CONF_KEYS_MAX);
			return FB_ECONF;
		}
		if (nlines++ == 0) {
			c->master_key = key;
			c->master_key_id = id;
		} else {
			c->old_keys[c->nold_keys] = key;
			c->old_key_ids[c->nold_keys++] = id;
		}
	}
	sodium_memzero(line, sizeof(line));
	fclose(f);
	if (nlines == 0) {
		snprintf(err, errsz,
		    "key 'pii_key_file' at line %d: '%s' holds "
		    "no key", at, c->pii_key_file);
		return FB_ECONF;
	}
	/* the index key: the lowest id, which every rotation keeps */
	c->index_key = c->master_key;
	lowest = c->master_key_id;
	for (i = 0; i < c->nold_keys; i++)
		if (c->old_key_ids[i] < lowest) {
			lowest = c->old_key_ids[i];
			c->index_key = c->old_keys[i];
		}
	c->index_key_id = lowest;
	return FB_OK;
}

/*
 * db_password_file: the database password as the file's first line (its
 * newline taken off), for a password kept out of formback.conf (the
 * Debian package's postinst writes one); not with db_password as well.
 * `at` is the key's line.
 */
static enum fb_err
conf_read_password(struct conf *c, char *err, size_t errsz, int at, bool both)
{
	FILE		*f;
	char		 line[256];

	if (both) {
		snprintf(err, errsz, "key 'db_password_file' at line %d: "
		    "db_password is set too; keep one", at);
		return FB_ECONF;
	}
	if ((f = fopen(c->db_password_file, "r")) == NULL) {
		snprintf(err, errsz,
		    "key 'db_password_file' at line %d: cannot "
		    "open '%s': %s", at, c->db_password_file, strerror(errno));
		return FB_ECONF;
	}
	if (fgets(line, sizeof(line), f) == NULL)
		line[0] = '\0';
	fclose(f);
	line[strcspn(line, "\r\n")] = '\0';
	free(c->db_password);
	c->db_password = strdup(line);
	sodium_memzero(line, sizeof(line));
	if (c->db_password == NULL) {
		snprintf(err, errsz, "out of memory");
		return FB_ECONF;
	}
	return FB_OK;
}

/* Has key k a value: a number, or a string not empty? */
static bool
filled(const struct conf *c, const struct conf_key *k)
{
	const char	*v;

	if (k->type == CT_INT || k->type == CT_BOOL || k->type == CT_LOGLEVEL ||
	    k->type == CT_SMS_PROVIDER)
		return true;
	v = *(char *const *)((const char *)c + k->off);
	return v != NULL && *v != '\0';
}

/*
 * The keys of the SMS driver sms_provider names (sms_keys[]), when the
 * file names one: each word of its list must have a line with a value,
 * or one of its "a|b" alternatives.  Without an sms_provider line the generic
 * gateway
 * is used as before the key existed: its URL may be missing (send_sms()
 * then fails each SMS with sms_gateway_not_configured).
 */
static enum fb_err
conf_check_sms(const struct conf *c, const char *path, const int *seen,
    char *err, size_t errsz)
{
	const char	*w = sms_keys[c->sms_provider], *e, *a, *ae;
	char		 keys[256];
	size_t		 i, n;
	bool		 ok;

	for (i = 0; strcmp(conf_keys[i].name, "sms_provider") != 0; i++)
		continue;
	if (!seen[i])
		return FB_OK;
	for (; *w != '\0'; w = *e == ' ' ? e + 1 : e) {
		n = strcspn(w, " ");
		e = w + n;
		ok = false;
		for (a = w; a < e && !ok; a = ae + 1) {
			ae = memchr(a, '|', (size_t)(e - a));
			if (ae == NULL)
				ae = e;
			for (i = 0; i < NELEM(conf_keys); i++)
				if (strlen(conf_keys[i].name) ==
				    (size_t)(ae - a) &&
				    strncmp(conf_keys[i].name, a,
				    (size_t)(ae - a)) == 0)
					ok = seen[i] != 0 && filled(c,
					    &conf_keys[i]);
		}
		if (!ok) {
			/* "a|b" reads "'a' or 'b'" */
			for (a = w, n = 0; a < e && n + 8 < sizeof(keys); a++)
				if (*a == '|') {
					memcpy(keys + n, "' or '", 6);
					n += 6;
				} else
					keys[n++] = *a;
			keys[n] = '\0';
			snprintf(err, errsz,
			    "%s: missing key '%s' (sms_provider "
			    "%s)", path, keys, sms_names[c->sms_provider]);
			return FB_ECONF;
		}
	}
	return FB_OK;
}

/* The line key `name` was set at, or 0 when it was not. */
static int
conf_seen(const int *seen, const char *name)
{
	size_t	 i;

	for (i = 0; strcmp(conf_keys[i].name, name) != 0; i++)
		continue;
	return seen[i];
}

static enum fb_err
conf_parse(struct conf *c, const char *path, char *err, size_t errsz)
{
	FILE		*f;
	char		 line[4096], *k, *v, *e;
	/* the line, or 0 */
	int		 seen[NELEM(conf_keys)] = { 0 };
	size_t		 i;
	int		 lineno = 0;
	enum fb_err	 rc;

	memset(c, 0, sizeof(*c));
	if (sodium_init() < 0) {
		snprintf(err, errsz, "cannot initialise libsodium");
		return FB_ECONF;
	}
	if (path == NULL)
		path = conf_default_path();
	if ((f = fopen(path, "r")) == NULL) {
		snprintf(err, errsz, "cannot open '%s': %s", path,
		    strerror(errno));
		return FB_ECONF;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			snprintf(err, errsz, "%s: line %d is too long", path,
			    lineno);
			fclose(f);
			return FB_ECONF;
		}
		for (k = line; isspace((unsigned char)*k); k++)
			continue;
		if (*k == '#' || *k == '\0')
			continue;
		if ((v = strchr(k, '=')) == NULL) {
			snprintf(err, errsz, "%s: line %d: expected "
			    "'key = value'", path, lineno);
			fclose(f);
			return FB_ECONF;
		}
		for (e = v; e > k && isspace((unsigned char)e[-1]); e--)
			continue;
		*e = '\0';
		for (v++; isspace((unsigned char)*v); v++)
			continue;
		for (e = v + strlen(v); e > v &&
		    isspace((unsigned char)e[-1]); e--)
			continue;
		*e = '\0';
		for (i = 0; i < NELEM(conf_keys); i++)
			if (strcmp(k, conf_keys[i].name) == 0)
				break;
		if (i == NELEM(conf_keys)) {
			snprintf(err, errsz, "%s: line %d: unknown key '%s'",
			    path, lineno, k);
			fclose(f);
			return FB_ECONF;
		}
		if ((rc = conf_set(c, &conf_keys[i], v, err, errsz,
		    lineno)) != FB_OK) {
			fclose(f);
			return rc == FB_ECONF ? rc : FB_ECONF;
		}
		seen[i] = lineno;
	}
	fclose(f);
	for (i = 0; i < NELEM(conf_keys); i++) {
		if (seen[i])
			continue;
		if (conf_keys[i].required) {
			snprintf(err, errsz, "%s: missing required key '%s'",
			    path, conf_keys[i].name);
			return FB_ECONF;
		}
		if (conf_keys[i].def != NULL &&
		    conf_set(c, &conf_keys[i], conf_keys[i].def, err, errsz,
		    0) != FB_OK)
			return FB_ECONF;
	}
	/* base_url is used to build links: no trailing slash. */
	for (e = c->base_url + strlen(c->base_url); e > c->base_url &&
	    e[-1] == '/'; e--)
		e[-1] = '\0';
	/* nor Twilio's: the API's paths are added to it */
	for (e = c->twilio_api_base + strlen(c->twilio_api_base);
	    e > c->twilio_api_base && e[-1] == '/'; e--)
		e[-1] = '\0';
	if ((rc = conf_check_sms(c, path, seen, err, errsz)) != FB_OK)
		return rc;
	if (c->db_password_file != NULL && (rc = conf_read_password(c, err,
	    errsz, conf_seen(seen, "db_password_file"),
	    conf_seen(seen, "db_password") != 0)) != FB_OK)
		return rc;
	return conf_read_key(c, err, errsz, conf_seen(seen, "pii_key_file"));
}

enum fb_err
conf_load(struct conf *c, const char *path, char *err, size_t errsz)
{
	enum fb_err	 e;

	/* a configuration refused leaves nothing allocated */
	if ((e = conf_parse(c, path, err, errsz)) != FB_OK)
		conf_free(c);
	return e;
}

void
conf_free(struct conf *c)
{
	size_t	 i;

	for (i = 0; i < NELEM(conf_keys); i++)
		if (conf_keys[i].type != CT_INT &&
		    conf_keys[i].type != CT_BOOL &&
		    conf_keys[i].type != CT_LOGLEVEL &&
		    conf_keys[i].type != CT_SMS_PROVIDER)	/* a string */
			free(*(char **)((char *)c + conf_keys[i].off));
	if (c->master_key != NULL)
		sodium_free(c->master_key);
	for (i = 0; i < c->nold_keys; i++)
		sodium_free(c->old_keys[i]);
	memset(c, 0, sizeof(*c));
}
