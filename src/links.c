/*
 * Short links of sent messages (design 2): /r/{token} redirects to the
 * message's link and records the click, /o/{token} is the email open
 * pixel, /u/{token} is the recipient's opt-out page: GET shows it, POST
 * (the page's button, or an RFC 8058 one-click request) adds opt_out
 * suppressions for the lead's contacts and cancels its pending
 * deliveries, so no later send goes out.  Rows of the route table
 * (route.c); the dispatcher runs the POST in its transaction.
 */
#include <stdio.h>
#include <string.h>

#include "links.h"
#include "req.h"
#include "url.h"
#include "db/store.h"

enum fb_err
links_create(struct db *db, struct link_new *l, size_t n)
{
	size_t	 k;

	for (k = 0; k < n; k++)
		random_b62(l[k].token, LINK_TOKEN_LEN);
	return db_links_add(db, l, n);
}

static void
page(struct req *r, int status, const char *title, const char *body,
    const char *form_action)
{
	buf_reset(&r->out);
	if (buf_printf(&r->out, "<!DOCTYPE html><html lang=\"ja\"><head>"
	    "<meta charset=\"utf-8\"><meta name=\"viewport\" "
	    "content=\"width=device-width\"><title>%s</title></head><body "
	    "style=\"font-family:sans-serif;max-width:32em;margin:2em auto\">"
	    "<h1>%s</h1><p>%s</p>", title, title, body) != FB_OK)
		buf_reset(&r->out);
	if (form_action != NULL && buf_printf(&r->out, "<form method=\"post\" "
	    "action=\"%s\"><button type=\"submit\" style=\"font-size:1.2em\">"
	    "配信を停止する</button></form>", form_action) != FB_OK)
		buf_reset(&r->out);
	if (buf_addstr(&r->out, "</body></html>") != FB_OK)
		buf_reset(&r->out);
	r->status = status;
	r->out_type = "text/html; charset=utf-8";
	/* never framed (clickjacking of the button), nothing loaded */
	req_header(r, "Content-Security-Policy", "default-src 'none'; "
	    "style-src 'unsafe-inline'; form-action 'self'; frame-ancestors "
	    "'none'; base-uri 'none'");
	req_header(r, "X-Frame-Options", "DENY");
	req_header(r, "Referrer-Policy", "no-referrer");
}

/* Opt out: suppress the lead's contacts tenant-wide, cancel what is pending. */
static enum fb_err
opt_out(struct req *r, const char *tenant, const char *lead)
{
	struct dbrows		 k;
	const struct contact_key_row *c;
	struct suppression_new	 sn;
	struct bidx		 b;
	char			 id[UUID_STRLEN + 1];
	bool			 added;
	enum fb_err		 e;

	if ((e = db_lead_contact_keys(r->db, tenant, lead, &k)) == FB_ENOTFOUND)
		return FB_OK;
	if (e != FB_OK)
		return e;
	c = k.row;
	sn = (struct suppression_new){ id, tenant, NULL, NULL, NULL, "tenant",
	    NULL,
	    "opt_out", "受信者による配信停止", NULL };
	/* both slots copied: the lead's, each under its key (pii.h) */
	sn.bidx = &b;
	if (c->email_bidx.p != NULL || c->email_bidx2.p != NULL) {
		uuid_v7(id);
		sn.kind = "email";
		db_bidx_copy(&c->email_bidx, &c->email_bidx2, c->bidx_key,
		    c->bidx2_key, &b);
		sn.masked = c->email_masked;
		e = db_suppression_add(r->db, &sn, &added);
	}
	if (e == FB_OK && (c->tel_bidx.p != NULL || c->tel_bidx2.p != NULL)) {
		uuid_v7(id);
		sn.kind = "tel";
		db_bidx_copy(&c->tel_bidx, &c->tel_bidx2, c->bidx_key,
		    c->bidx2_key, &b);
		sn.masked = c->tel_masked;
		e = db_suppression_add(r->db, &sn, &added);
	}
	dbrows_free(&k);
	if (e == FB_OK)
		e = db_optout_cancel(r->db, tenant, lead);
	if (e == FB_OK)
		e = db_audit_add(r->db, tenant, "system", NULL, r->request_id,
		    "opt_out", "lead", lead, NULL);
	return e;
}

#define NOT_FOUND_TITLE	"ページが見つかりません"
#define NOT_FOUND_TEXT	"リンクが正しくないか、期限が切れています。"

/*
 * The link of the request's token, of `kind`, counted as visited: its
 * tenant, lead and URL (NULL for none) into the caller's buffers.
 * Returns FB_OK with *found, false after answering 404; or the
 * database's error.
 */
static enum fb_err
link_visit(struct req *r, const char *kind, char tenant[UUID_STRLEN + 1],
    char lead[UUID_STRLEN + 1], char url[URL_MAX + 1], bool *found)
{
	const char	*tok = req_pathvar(r, "token");
	struct dbrows	 l;
	const struct link_row *k;
	enum fb_err	 e;

	*found = false;
	if (!b62_is(tok, LINK_TOKEN_LEN)) {
		page(r, 404, NOT_FOUND_TITLE, NOT_FOUND_TEXT, NULL);
		return FB_OK;
	}
	if ((e = db_ensure(r->db)) == FB_OK)
		e = db_link_get(r->db, tok, &l);
	if (e == FB_ENOTFOUND || (e == FB_OK &&
	    strcmp((k = l.row)->kind, kind) != 0)) {
		if (e == FB_OK)
			dbrows_free(&l);
		page(r, 404, NOT_FOUND_TITLE, NOT_FOUND_TEXT, NULL);
		return FB_OK;
	}
	if (e != FB_OK)
		return e;
	snprintf(tenant, UUID_STRLEN + 1, "%s", k->tenant_id);
	snprintf(lead, UUID_STRLEN + 1, "%s", k->lead_id);
	snprintf(url, URL_MAX + 1, "%s", k->url != NULL ? k->url : "");
	dbrows_free(&l);
	if ((e = db_link_hit(r->db, tok)) != FB_OK)
		return e;
	*found = true;
	return FB_OK;
}

enum fb_err
links_click(struct req *r)
{
	char		 tenant[UUID_STRLEN + 1], lead[UUID_STRLEN + 1];
	char		 url[URL_MAX + 1], to[URL_MAX + 1];
	bool		 found;
	enum fb_err	 e;

	if ((e = link_visit(r, "click", tenant, lead, url, &found)) != FB_OK ||
	    !found)
		return e;
	/*
	 * only ever a URL as the parser writes it (rows of older releases too)
	 */
	if (url_normalize(url, to) && req_header(r, "Location", to) == FB_OK) {
		req_header(r, "Referrer-Policy", "no-referrer");
		req_empty(r, 302);
	} else
		page(r, 404, NOT_FOUND_TITLE, "リンク先がありません。", NULL);
	return FB_OK;
}

enum fb_err
links_open(struct req *r)
{
	static const unsigned char gif[] = {
		0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00,
		0x01, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00,
		0xff, 0xff, 0xff, 0x21, 0xf9, 0x04, 0x01, 0x00,
		0x00, 0x00, 0x00, 0x2c, 0x00, 0x00, 0x00, 0x00,
		0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44,
		0x01, 0x00, 0x3b };
	char		 tenant[UUID_STRLEN + 1], lead[UUID_STRLEN + 1];
	char		 url[URL_MAX + 1];
	bool		 found;
	enum fb_err	 e;

	if ((e = link_visit(r, "open", tenant, lead, url, &found)) != FB_OK ||
	    !found)
		return e;
	buf_reset(&r->out);
	if ((e = buf_add(&r->out, gif, sizeof(gif))) != FB_OK)
		return e;
	r->status = 200;
	r->out_type = "image/gif";
	return FB_OK;
}

enum fb_err
links_optout_page(struct req *r)
{
	char		 tenant[UUID_STRLEN + 1], lead[UUID_STRLEN + 1];
	char		 url[URL_MAX + 1];
	bool		 found;
	enum fb_err	 e;

	if ((e = link_visit(r, "optout", tenant, lead, url, &found)) != FB_OK ||
	    !found)
		return e;
	page(r, 200, "配信停止", "今後のご案内(SMS・メール)が不要な場合は、下のボタンを"
	    "押してください。", r->path);
	return FB_OK;
}

enum fb_err
links_optout(struct req *r)
{
	char		 tenant[UUID_STRLEN + 1], lead[UUID_STRLEN + 1];
	char		 url[URL_MAX + 1];
	bool		 found;
	enum fb_err	 e;

	if ((e = link_visit(r, "optout", tenant, lead, url, &found)) == FB_OK &&
	    found)
		e = opt_out(r, tenant, lead);
	if (e == FB_ERETRY)
		return e;	/* the dispatcher runs the transaction again */
	if (e != FB_OK)
		/*
		 * the page again, with its button (the dispatcher rolls back)
		 */
		page(r, 503, "ただいま混み合っています", "時間をおいてもう一度お試しください。", r->path);
	else if (found)
		page(r, 200, "配信を停止しました", "今後、ご案内はお送りしません。", NULL);
	return FB_OK;
}
