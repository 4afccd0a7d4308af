/*
 * Short links of sent messages (design 2): /r/{token} redirects to the
 * message's link and records the click, /o/{token} is the email open
 * pixel, /u/{token} is the recipient's opt-out page: GET shows it, POST
 * (the page's button, or an RFC 8058 one-click request) adds opt_out
 * suppressions for the lead's contacts and cancels its pending
 * deliveries, so no later send goes out.
 */
#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "links.h"
#include "req.h"
#include "match.h"
#include "store.h"

static const char b62[] =
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

enum fb_err
link_create(struct db *db, const char *tenant, const char *delivery,
    const char *lead, const char *kind, const char *url, char token[LINK_TOKEN_LEN + 1])
{
	size_t	 i;

	for (i = 0; i < LINK_TOKEN_LEN; i++)
		token[i] = b62[randombytes_uniform(62)];
	token[i] = '\0';
	return db_sd(db, SD_LINK_INSERT, DBPARAMS(P_STR(token), P_STR(tenant),
	    P_STR(delivery), P_STR(lead), P_STR(kind), P_STR(url)), NULL);
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
	    "style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; "
	    "base-uri 'none'");
	req_header(r, "X-Frame-Options", "DENY");
	req_header(r, "X-Content-Type-Options", "nosniff");
	req_header(r, "Referrer-Policy", "no-referrer");
}

/* Opt out: suppress the lead's contacts tenant-wide, cancel what is pending. */
static enum fb_err
opt_out(struct req *r, const char *tenant, const char *lead)
{
	struct dbres	 k, a;
	char		 id[UUID_STRLEN + 1];
	static const char *const kinds[] = { "email", "tel" };
	unsigned	 i;
	enum fb_err	 e;

	if ((e = db_sd(r->db, SD_LEAD_CONTACT_KEYS, DBPARAMS(P_STR(tenant),
	    P_STR(lead)), &k)) != FB_OK)
		return e;
	for (i = 0; i < 2 && k.nrows == 1 && e == FB_OK; i++) {
		if (k.cell[i * 2] == NULL)
			continue;
		if ((e = db_sd(r->db, SD_SUP_ACTIVE, DBPARAMS(P_STR(tenant),
		    P_STR(kinds[i]), P_BIN(k.cell[i * 2], k.len[i * 2]),
		    P_STR("tenant"), P_NULL), &a)) != FB_OK)
			break;
		if (a.nrows == 0) {
			uuid_v7(id);
			e = db_sd(r->db, SD_SUP_INSERT, DBPARAMS(P_STR(id), P_STR(tenant),
			    P_STR(kinds[i]), P_BIN(k.cell[i * 2], k.len[i * 2]),
			    P_STR(k.cell[i * 2 + 1]), P_STR("tenant"), P_NULL,
			    P_STR("opt_out"), P_STR("受信者による配信停止"), P_NULL), NULL);
		}
		dbres_free(&a);
	}
	dbres_free(&k);
	if (e == FB_OK)
		e = db_sd(r->db, SD_OPTOUT_CANCEL, DBPARAMS(P_STR(tenant), P_STR(lead)), NULL);
	if (e == FB_OK)
		e = db_audit_add(r->db, tenant, "system", NULL, r->request_id,
		    "opt_out", "lead", lead, NULL);
	return e;
}

void
links_handle(struct req *r)
{
	static const unsigned char gif[] = {
		0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80,
		0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0x21, 0xf9, 0x04,
		0x01, 0x00, 0x00, 0x00, 0x00, 0x2c, 0x00, 0x00, 0x00, 0x00, 0x01,
		0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3b };
	const char	*tok = r->path + 3;
	struct dbres	 l;
	char		 kind = r->path[1], tenant[UUID_STRLEN + 1], lead[UUID_STRLEN + 1];
	char		 to[URL_MAX + 1];
	enum fb_err	 e;
	bool		 post = strcmp(r->method, "POST") == 0;

	if (strlen(tok) != LINK_TOKEN_LEN || strspn(tok, b62) != LINK_TOKEN_LEN ||
	    (!post && strcmp(r->method, "GET") != 0 && strcmp(r->method, "HEAD") != 0) ||
	    (post && kind != 'u') || db_ensure(r->db) != FB_OK ||
	    db_sd(r->db, SD_LINK_GET, DBPARAMS(P_STR(tok)), &l) != FB_OK) {
		page(r, 404, "ページが見つかりません", "リンクが正しくないか、期限が切れています。", NULL);
		return;
	}
	if (l.nrows == 0 || strcmp(dbres_get(&l, 0, 3), kind == 'r' ? "click" :
	    kind == 'o' ? "open" : "optout") != 0) {
		dbres_free(&l);
		page(r, 404, "ページが見つかりません", "リンクが正しくないか、期限が切れています。", NULL);
		return;
	}
	snprintf(tenant, sizeof(tenant), "%s", dbres_get(&l, 0, 0));
	snprintf(lead, sizeof(lead), "%s", dbres_get(&l, 0, 2));
	e = db_sd(r->db, SD_LINK_HIT, DBPARAMS(P_STR(tok)), NULL);
	if (kind == 'r') {
		/* only ever a URL as the parser writes it (rows of older releases too) */
		if (e == FB_OK && dbres_get(&l, 0, 4) != NULL &&
		    url_normalize(dbres_get(&l, 0, 4), to) &&
		    req_header(r, "Location", to) == FB_OK) {
			req_header(r, "Referrer-Policy", "no-referrer");
			req_empty(r, 302);
		} else
			page(r, 404, "ページが見つかりません", "リンク先がありません。", NULL);
	} else if (kind == 'o') {
		buf_reset(&r->out);
		r->status = buf_add(&r->out, gif, sizeof(gif)) == FB_OK ? 200 : 500;
		r->out_type = "image/gif";
	} else if (!post)
		page(r, 200, "配信停止", "今後のご案内(SMS・メール)が不要な場合は、下のボタンを"
		    "押してください。", r->path);
	else {
		e = db_begin(r->db);
		if (e == FB_OK)
			e = opt_out(r, tenant, lead);
		if (e == FB_OK)
			e = db_commit(r->db);
		else
			db_rollback(r->db);
		if (e == FB_OK)
			page(r, 200, "配信を停止しました", "今後、ご案内はお送りしません。", NULL);
		else
			page(r, 503, "ただいま混み合っています", "時間をおいてもう一度お試しください。",
			    r->path);
	}
	dbres_free(&l);
}
