/*
 * Operator emails (design 1): the outbox's `email` rows -- URL takeover
 * notices (contract: Errors, last paragraph), usage alerts (contract:
 * Events, usage.threshold_reached), a flood's leads quarantined and a
 * webhook endpoint failing or stopped (issue 40), and sending held for a flood
 * of new leads (issue 11, sites held
 * before migration 0034) -- rendered in Japanese and sent to the owners
 * and admins the row names who are still active.
 */
#include <stdio.h>
#include <string.h>

#include <json-c/json_pointer.h>

#include "formback.h"
#include "send.h"
#include "session.h"
#include "message.h"
#include "db/store.h"

#define OPMAIL_PASSES	50	/* batches of 20 per pass */

/*
 * The value at a JSON pointer (RFC 6901) as a string, "" when absent or null.
 */
static const char *
jstr(json_object *o, const char *pointer)
{
	json_object	*v;

	return json_pointer_get(o, pointer, &v) == 0 && v != NULL ?
	    json_object_get_string(v) : "";
}

/*
 * A flood's leads quarantined (issue 40; tag/quarantine.c): what passed
 * which limit, and where the batch is released or discarded.
 */
static bool
flood_mail(json_object *p, struct buf *subj, struct buf *text)
{
	static const char *const what[][3] = {
		{ "address", "1 つの送信元アドレス (", ") から届いた連絡先付きの入力" },
		{ "network", "1 つの送信元ネットワーク (",
		  ") から届いた連絡先付きの入力" },
		{ "visitor", "1 人の訪問者 (", ") が 1 件のリードに入力した連絡先" },
		{ "site", "新しいリード", "" },
	};
	const char	*kind = jstr(p, "/kind");
	size_t		 w;
	enum fb_err	 e;

	for (w = 0; w < NELEM(what) - 1 && strcmp(kind, what[w][0]) != 0; w++)
		continue;
	e = buf_printf(subj, "【Formback】%s の新しいリードの一部を保留しました"
	    "(大量送信の疑い)", jstr(p, "/domain"));
	if (e == FB_OK)
		e = buf_printf(text, "Formback をご利用いただきありがとうございます。\n\n"
		    "サイト %s で %s (UTC) からの 1 時間に、", jstr(p, "/domain"),
		    jstr(p, "/hour"));
	if (e == FB_OK)
		e = buf_printf(text, "%s%s%s", what[w][1], w + 1 < NELEM(what) ?
		    jstr(p, "/source") : "", what[w][2]);
	if (e == FB_OK)
		e = buf_printf(text, "が %s 件となり、上限 (%s 件) に達しました。"
		    "架空の電話番号やメールアドレスを大量に送り込む攻撃の可能性が"
		    "あるため、これに当たるリードを保留し、SMS・メールを送らずに"
		    "います。このサイトのほかのリードへの送信は通常どおり続いて"
		    "います。\n\n"
		    "管理画面の「設定」の「保留中のリード」で内容を確認し、本物の"
		    "リードであれば「送信を再開」、不要であれば「破棄」を選んで"
		    "ください(保留 ID: %s)。\n",
		    jstr(p, "/count"), jstr(p, "/threshold"),
		    jstr(p, "/quarantine_id"));
	return e == FB_OK;
}

/*
 * The mails of a webhook endpoint (formback-webhooks; issue 40):
 * webhook_failing when its failures start, webhook_disabled when it is
 * stopped.  Times are UTC, as the payload has them.
 */
static bool
render_webhook(const char *type, json_object *p, struct buf *subj,
    struct buf *text)
{
	const char	*url = jstr(p, "/endpoint/url");
	const char	*since = jstr(p, "/endpoint/failing_since");
	const char	*err = jstr(p, "/endpoint/error");
	bool		 failing = strcmp(type, "webhook_failing") == 0;
	enum fb_err	 e;

	if (!failing && strcmp(type, "webhook_disabled") != 0)
		return false;
	e = buf_printf(subj, failing ? "【Formback】Webhook の送信に"
	    "失敗しています(%s)" : "【Formback】Webhook エンドポイント"
	    "を停止しました(%s)", url);
	if (e == FB_OK)
		e = buf_printf(text, "Formback をご利用いただき"
		    "ありがとうございます。\n\nWebhook エンドポイント"
		    " %s ", url);
	if (e == FB_OK && failing)
		e = buf_printf(text, "への送信が %s (UTC) から失敗して"
		    "います(%s)。\n\n失敗した送信は 1 分後、5 分後、"
		    "30 分後、2 時間後、6 時間後に再試行します。応答の"
		    "ないエンドポイントへの送信は一時止め、間隔をおいて"
		    "再開を試みます(止めている間、イベントの試行回数は"
		    "減りません)。失敗が 72 時間以上にわたって 15 回以上"
		    "続くと、エンドポイントは停止されます。\n\n受信側の"
		    "サーバーをご確認ください。管理画面の Webhook で配信"
		    "履歴を確認でき、「テスト送信」で受信を試せます。\n",
		    since, err);
	else if (e == FB_OK && strcmp(jstr(p, "/endpoint/disabled_reason"),
	    "gone") == 0)
		e = buf_printf(text, "が 410 Gone を返したため");
	else if (e == FB_OK)
		e = buf_printf(text, "への送信が %s (UTC) から 72 時間以上"
		    "続けて失敗したため(%s)", since, err);
	if (e == FB_OK && !failing)
		e = buf_printf(text, "、送信を停止しました。停止中の"
		    "イベントは送信されず、配信履歴に「endpoint stopped」"
		    "と記録されます。\n\n受信側を直したら、管理画面の "
		    "Webhook でこのエンドポイントの「再開」を押してください。"
		    "停止中に記録されたイベントもまとめて再送されます。\n");
	return e == FB_OK;
}

/* Subject and text of one operator email; false for an unknown template. */
static bool
render(const char *type, json_object *p, struct buf *subj, struct buf *text)
{
	json_object	*ex;
	size_t		 i;
	enum fb_err	 e;

	if (strncmp(type, "webhook_", 8) == 0)
		return render_webhook(type, p, subj, text);
	if (strcmp(type, "url_takeover") == 0) {
		e = buf_printf(subj, "【Formback】キャンペーン「%s」のページが"
		    "別のキャンペーンに移ります", jstr(p, "/warning/lost_campaign/name"));
		if (e == FB_OK)
			e = buf_printf(text, "Formback をご利用いただきありがとうございます。\n\n"
			    "キャンペーン「%s」(%s) の URL ルールの保存により、"
			    "直近 30 日にキャンペーン「%s」(%s) が扱っていたページ %s 件が、"
			    "今後は「%s」の対象になります。\n\n"
			    "該当したルール: %s %s (%s)\n例:\n",
			    jstr(p, "/warning/taking_campaign/name"),
			    jstr(p, "/warning/taking_campaign/key"),
			    jstr(p, "/warning/lost_campaign/name"),
			    jstr(p, "/warning/lost_campaign/key"),
			    jstr(p, "/warning/page_count"),
			    jstr(p, "/warning/taking_campaign/name"),
			    jstr(p, "/warning/rule/match_type"), jstr(p,
			    "/warning/rule/pattern"),
			    jstr(p, "/warning/rule/role"));
		if (json_pointer_get(p, "/warning/example_pages", &ex) == 0 &&
		    json_object_is_type(ex, json_type_array))
			for (i = 0; e == FB_OK &&
			    i < json_object_array_length(ex); i++)
				e = buf_printf(text, "  %s\n",
				    json_object_get_string(
				    json_object_array_get_idx(ex, i)));
		if (e == FB_OK)
			e = buf_printf(text, "\n意図しない変更であれば、URL ルールを"
			    "見直してください。\n");
		return e == FB_OK;
	}
	if (strcmp(type, "usage_threshold") == 0) {
		e = buf_printf(subj, "【Formback】%s の送信数が上限の %s%% に達しました",
		    jstr(p, "/usage/period"), jstr(p,
		    "/usage/threshold_percent"));
		if (e == FB_OK)
			e = buf_printf(text, "Formback をご利用いただきありがとうございます。\n\n"
			    "%s (日本時間) の送信数が %s 通となり、プラン「%s」の月間上限 "
			    "%s 通の %s%% に達しました。\n\n%s\n",
			    jstr(p, "/usage/period"), jstr(p, "/usage/used"),
			    jstr(p, "/usage/plan"), jstr(p, "/usage/quota"),
			    jstr(p, "/usage/threshold_percent"),
			    strcmp(jstr(p, "/usage/plan"), "free") == 0 ?
			    "Free プランでは上限を超えた送信は行われません"
			    "(free_quota_exhausted)。翌月 1 日 (日本時間) に再開します。" :
			    "上限を超えた分も送信は続き、超過分としてご請求します。");
		return e == FB_OK;
	}
	if (strcmp(type, "flood_quarantined") == 0)
		return flood_mail(p, subj, text);
	if (strcmp(type, "sending_held") == 0) {
		e = buf_printf(subj, "【Formback】%s への送信を停止しました(新規リードの急増)",
		    jstr(p, "/domain"));
		if (e == FB_OK)
			e = buf_printf(text, "Formback をご利用いただきありがとうございます。\n\n"
			    "サイト %s で %s (UTC) からの 1 時間に新しいリードが %s 件あり、"
			    "このサイトの上限 %s 件を超えました。架空の電話番号やメール"
			    "アドレスを大量に送り込む攻撃の可能性があるため、このサイトの"
			    "SMS・メール送信を止めています。\n\n"
			    "リードを確認のうえ、運用担当者に送信の再開を依頼してください"
			    "(formbackctl site release --id %s、急増分のリードへの送信を"
			    "取りやめる場合は --discard を付けます)。\n",
			    jstr(p, "/domain"), jstr(p, "/hour"), jstr(p,
			    "/leads"),
			    jstr(p, "/ceiling"), jstr(p, "/site_id"));
		return e == FB_OK;
	}
	return false;
}

/*
 * Send one outbox row to its recipients; false when any send must be retried.
 */
static bool
send_row(struct db *db, const struct conf *c, const struct opmail_row *r,
    int *n)
{
	json_object	*p = json_tokener_parse(r->payload), *ids;
	struct buf	 subj, text, html;
	struct dbrows	 to;
	const struct opmail_to_row *t;
	char		 err[64];
	size_t		 j;
	bool		 ok = true;

	if (p == NULL || !json_object_object_get_ex(p, "member_ids", &ids)) {
		logx(LOG_ERR, "outbox '%s': unreadable operator email", r->id);
		json_object_put(p);
		return true;	/* nothing to retry */
	}
	buf_init(&subj, 4096);
	buf_init(&text, 1u << 16);
	buf_init(&html, 1u << 17);
	if (!render(r->template, p, &subj, &text) ||
	    buf_addstr(&html,
	    "<!DOCTYPE html><html><body><pre style=\"font-family:"
	    "sans-serif;white-space:pre-wrap\">") != FB_OK ||
	    html_escape(&html, text.data) != FB_OK ||
	    buf_addstr(&html, "</pre></body></html>") != FB_OK) {
		logx(LOG_ERR, "outbox '%s': no template '%s'", r->id,
		    r->template);
		goto done;
	}
	if (db_opmail_to(db, r->tenant_id, json_object_to_json_string(ids),
	    &to) != FB_OK) {
		ok = false;
		goto done;
	}
	for (j = 0, t = to.row; j < to.n; j++) {
		switch (send_email(c, t[j].email, subj.data, text.data,
		    html.data, NULL, NULL, err, sizeof(err))) {
		case SEND_OK:
			(*n)++;
			break;
		case SEND_RETRY:
			ok = false;
			break;
		case SEND_FAIL:
			logx(LOG_WARN,
			    "outbox '%s': a member's address was refused: %s",
			    r->id, err);
			break;
		}
	}
	dbrows_free(&to);
done:
	buf_release(&subj);
	buf_release(&text);
	buf_release(&html);
	json_object_put(p);
	return ok;
}

enum fb_err
opmail_pass(struct db *db, const struct conf *c, int *sent)
{
	struct dbrows	 r;
	const struct opmail_row *row;
	size_t		 i, done;
	int		 pass;
	enum fb_err	 e = FB_OK;

	*sent = 0;
	for (pass = 0; pass < OPMAIL_PASSES; pass++) {
		if ((e = db_begin(db)) != FB_OK)
			return e;
		if ((e = db_opmail_claim(db, &r)) != FB_OK) {
			db_rollback(db);
			return e;
		}
		for (i = done = 0, row = r.row; i < r.n && e == FB_OK; i++)
			if (send_row(db, c, &row[i], sent)) {
				e = db_opmail_done(db, row[i].id);
				done++;
			}
		if (e == FB_OK)
			e = db_commit(db);
		else
			db_rollback(db);
		i = r.n;
		dbrows_free(&r);
		if (e != FB_OK || i < 20 || done < i)
			break;
	}
	return e;
}

/* One member's link (issue 16): a new token, mailed, its hash kept. */
static enum send_result
invitation_send(struct db *db, const struct conf *c,
    const struct invite_send_row *iv)
{
	char		 token[TOKEN_LEN + 1], err[64];
	unsigned char	 hash[SECRET_HASH_LEN];
	bool		 invite = strcmp(iv->purpose, "invite") == 0;
	struct buf	 subj, text, html;
	enum send_result res = SEND_RETRY;

	token_generate("fbi_", token);
	secret_hash(token, hash);
	buf_init(&subj, 4096);
	buf_init(&text, 8192);
	buf_init(&html, 16384);
	if (buf_printf(&subj, invite ? "【Formback】%s への招待" :
	    "【Formback】パスワードの再設定", iv->tenant_name) != FB_OK ||
	    buf_printf(&text, "Formback をご利用いただきありがとうございます。\n\n"
	    "%s\n\n%s/admin/#/accept/%s\n\n"
	    "このリンクは %s に一度だけ使えます(%s、UTC まで)。"
	    "心当たりがない場合は、このメールを破棄してください。\n",
	    invite ? "アカウントに招待されました。次のリンクからパスワードを設定して"
	    "ください。" : "パスワードの再設定を受け付けました。次のリンクから新しい"
	    "パスワードを設定してください。",
	    c->base_url, token, invite ? "72 時間以内" : "1 時間以内",
	    iv->expires_at) != FB_OK ||
	    buf_addstr(&html,
	    "<!DOCTYPE html><html><body><pre style=\"font-family:"
	    "sans-serif;white-space:pre-wrap\">") != FB_OK ||
	    html_escape(&html, text.data) != FB_OK ||
	    buf_addstr(&html, "</pre></body></html>") != FB_OK)
		goto done;
	res = send_email(c, iv->email, subj.data, text.data, html.data, NULL,
	    NULL, err, sizeof(err));
	if (res == SEND_FAIL)
		logx(LOG_WARN, "invitation '%s': the address was refused: %s",
		    iv->id, err);
	if (res == SEND_OK && db_invitation_sent(db, iv->id, hash) != FB_OK)
		res = SEND_RETRY;
done:
	sodium_memzero(token, sizeof(token));
	buf_release(&subj);
	sodium_memzero(text.data, text.len);
	sodium_memzero(html.data, html.len);
	buf_release(&text);
	buf_release(&html);
	return res;
}

enum fb_err
invitation_pass(struct db *db, const struct conf *c, int *sent)
{
	struct dbrows	 r;
	const struct invite_send_row *row;
	size_t		 i;
	int		 pass;
	enum fb_err	 e = FB_OK;

	*sent = 0;
	if ((e = db_member_purge(db)) != FB_OK)
		return e;
	for (pass = 0; pass < OPMAIL_PASSES; pass++) {
		if ((e = db_begin(db)) != FB_OK)
			return e;
		if ((e = db_invitation_claim(db, &r)) != FB_OK) {
			db_rollback(db);
			return e;
		}
		for (i = 0, row = r.row; i < r.n; i++)
			if (invitation_send(db, c, &row[i]) == SEND_OK)
				(*sent)++;
		i = r.n;
		dbrows_free(&r);
		if ((e = db_commit(db)) != FB_OK) {
			db_rollback(db);
			return e;
		}
		if (i < 20)
			break;
	}
	return e;
}
