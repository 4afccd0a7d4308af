/* Privacy-policy checks: the judgement of a page (ppcheck.h). */
#include <string.h>
#include <strings.h>

#include "ppcheck.h"

struct pp_item {
	const char		*code;
	const char		*message;
	const char *const	*words;		/* any of them says it */
	/* recommended in explicit mode */
	bool			 optional_explicit;
};

static const char *const capture_words[] = {
	"入力途中", "入力中の", "送信前", "送信される前", "入力された情報",
	"入力いただいた情報", "入力内容", "before you submit", "before submission",
	NULL
};
static const char *const sms_words[] = {
	"SMS", "ＳＭＳ", "ショートメッセージ", "ショートメール", "携帯電話番号宛",
	NULL
};
static const char *const email_words[] = {
	"メール", "e-mail", "email", NULL
};
static const char *const optout_words[] = {
	"配信停止", "配信を停止", "オプトアウト", "受信拒否", "受信を拒否",
	"停止を希望", "opt out", "opt-out", "unsubscribe", NULL
};

static const struct pp_item items[] = {
	{ "input_capture_not_disclosed",
	  "フォームの送信前に入力内容(電話番号・メールアドレス)を取得することが記載されていません。",
	  capture_words, false },
	{ "sms_not_disclosed",
	  "入力された電話番号に SMS でご案内を送ることが記載されていません。",
	  sms_words, false },
	{ "email_not_disclosed",
	  "入力されたメールアドレスにメールでご案内を送ることが記載されていません。",
	  email_words, false },
	{ "optout_not_disclosed",
	  "ご案内の配信を停止する方法が記載されていません。",
	  optout_words, true },
};

/* Does page[0..n) hold word (ASCII letters in any case)? */
static bool
has(const char *page, size_t n, const char *word)
{
	size_t	 w = strlen(word), i;

	for (i = 0; i + w <= n; i++)
		if (strncasecmp(page + i, word, w) == 0)
			return true;
	return false;
}

static void
finding(json_object *findings, const char *code, const char *severity,
    const char *message)
{
	json_object	*f = json_object_new_object();

	jadd_str(f, "code", code);
	jadd_str(f, "severity", severity);
	jadd_str(f, "message", message);
	json_object_array_add(findings, f);
}

const char *
pp_judge(const char *page, size_t n, const char *mode, const char *url,
    json_object *findings)
{
	const char *const *w;
	bool		 failed = false, expl = mode != NULL &&
			    strcmp(mode, "explicit") == 0;
	size_t		 i;

	if (n > PP_PAGE_MAX)
		n = PP_PAGE_MAX;
	for (i = 0; i < NELEM(items); i++) {
		for (w = items[i].words; *w != NULL; w++)
			if (has(page, n, *w))
				break;
		if (*w != NULL)
			continue;
		if (items[i].optional_explicit && expl)
			finding(findings, items[i].code, "recommended",
			    items[i].message);
		else {
			finding(findings, items[i].code, "required",
			    items[i].message);
			failed = true;
		}
	}
	if (url != NULL && strncmp(url, "https:", 6) != 0)
		finding(findings, "not_https", "recommended",
		    "プライバシーポリシーのページが https で配信されていません。");
	return failed ? "failed" : "passed";
}
