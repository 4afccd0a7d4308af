/*
 * Error texts: internal errors for logs, and the public catalog of the
 * contract's error envelope (contract: Errors) with Japanese messages.
 */
#include <stddef.h>

#include "err.h"

static const char *const fb_errs[FB_ERR__MAX] = {
	/* FB_OK */		"success",
	/* FB_ENOMEM */		"out of memory or buffer cap reached",
	/* FB_EDB */		"database error",
	/* FB_ERETRY */		"deadlock or lock wait timeout",
	/* FB_EGONE */		"database connection lost",
	/* FB_ENOTFOUND */	"not found",
	/* FB_EDUP */		"duplicate key",
	/* FB_EINVAL */		"invalid argument",
	/* FB_ECONF */		"bad configuration",
	/* FB_ECRYPTO */	"crypto failure",
	/* FB_EIO */		"i/o error",
	/* FB_UNDONE */		"rolled back on purpose",
};

const char *
fb_strerror(enum fb_err e)
{
	if ((unsigned)e >= FB_ERR__MAX || fb_errs[e] == NULL)
		return "unknown error";
	return fb_errs[e];
}

const struct api_code_def api_codes[API_CODE__MAX] = {
	/* AC_INVALID_JSON */
	{ "invalid_request", 400, "invalid_json",
	  "リクエスト本文が正しいJSONではありません。" },
	/* AC_BODY_TOO_LARGE */
	{ "invalid_request", 400, "body_too_large",
	  "リクエスト本文が大きすぎます。" },
	/* AC_PARAMETER_MISSING */
	{ "invalid_request", 422, "parameter_missing",
	  "必須の項目が指定されていません。" },
	/* AC_PARAMETER_INVALID */
	{ "invalid_request", 422, "parameter_invalid",
	  "項目の値が正しくありません。" },
	/* AC_QUERY_INVALID */
	{ "invalid_request", 400, "parameter_invalid",
	  "クエリパラメータの値が正しくありません。" },
	/* AC_PATH_INVALID */
	{ "invalid_request", 400, "parameter_invalid",
	  "パスに含まれるIDの形式が正しくありません。" },
	/* AC_CURSOR_INVALID */
	{ "invalid_request", 400, "cursor_invalid",
	  "cursor が正しくありません。前のレスポンスの next_cursor をそのまま指定してください。" },
	/* AC_METHOD_NOT_ALLOWED */
	{ "invalid_request", 405, "method_not_allowed",
	  "このパスではそのHTTPメソッドは使えません。" },
	/* AC_PRECONDITION_FAILED: If-Match names another version (issue 44) */
	{ "invalid_request", 412, "precondition_failed",
	  "取得した後にほかの変更がありました。取得し直してから変更してください。" },
	/* AC_LENGTH_REQUIRED: as fcgi-conf/errors/status-411.html */
	{ "invalid_request", 411, "length_required",
	  "本文のないPOSTにも Content-Length: 0 を付けてください。" },
	/* AC_BAD_REQUEST: as fcgi-conf/errors/status-400.html */
	{ "invalid_request", 400, "bad_request",
	  "HTTPリクエストの形式が正しくありません(GETに本文を付けていないか、ヘッダーやURLの書き方を確認してください)。" },
	/* AC_API_KEY_MISSING */
	{ "authentication_error", 401, "api_key_missing",
	  "APIキーがありません。Authorization: Bearer ヘッダーで指定してください。" },
	/* AC_API_KEY_INVALID */
	{ "authentication_error", 401, "api_key_invalid",
	  "APIキーが正しくありません。" },
	/* AC_API_KEY_REVOKED */
	{ "authentication_error", 401, "api_key_revoked",
	  "このAPIキーは無効化されています。" },
	/* AC_API_KEY_IN_QUERY */
	{ "authentication_error", 401, "api_key_in_query",
	  "APIキーはクエリ文字列では受け付けません。Authorization: Bearer ヘッダーで指定してください。" },
	/* AC_API_KEY_CREATOR_INACTIVE */
	{ "authentication_error", 401, "api_key_creator_inactive",
	  "このAPIキーを発行したメンバーが停止または削除されているため、キーは使えません。" },
	/* AC_SCOPE_INSUFFICIENT */
	{ "permission_error", 403, "scope_insufficient",
	  "このAPIキーには操作に必要なスコープがありません。" },
	/* AC_PLAN_LIMIT_EXCEEDED */
	{ "permission_error", 403, "plan_limit_exceeded",
	  "ご契約のプランの上限を超えています。" },
	/* AC_SESSION_REQUIRED */
	{ "permission_error", 403, "session_required",
	  "この操作(ステータスの変更、HTMLの直接入力など)は管理画面からのみ行えます。" },
	/* AC_NOT_FOUND */
	{ "not_found", 404, "not_found",
	  "対象が見つかりません。" },
	/* AC_RATE_LIMIT */
	{ "rate_limit_error", 429, "rate_limit_exceeded",
	  "リクエスト数が上限を超えました。Retry-After 秒待ってから再度お試しください。" },
	/* AC_API_KEY_DRAFT_ONLY */
	{ "invalid_request", 422, "api_key_draft_only",
	  "APIキーでは一時停止(キャンペーン)または下書き(シナリオ)の状態でのみ作成できます。" },
	/* AC_IDEMPOTENCY_KEY_IN_PROGRESS */
	{ "invalid_request", 409, "idempotency_key_in_progress",
	  "同じ Idempotency-Key のリクエストを処理中です。しばらくしてから再送してください。" },
	/* AC_IDEMPOTENCY_KEY_REUSED */
	{ "invalid_request", 422, "idempotency_key_reused",
	  "この Idempotency-Key は異なる内容のリクエストで使用済みです。" },
	/* AC_IDEMPOTENCY_KEY_INVALID */
	{ "invalid_request", 400, "idempotency_key_invalid",
	  "Idempotency-Key は1文字以上255文字以内の表示可能なASCII文字で指定してください。" },
	/* AC_CAMPAIGN_KEY_TAKEN */
	{ "invalid_request", 409, "campaign_key_taken",
	  "このキャンペーンキーは既に使われています。" },
	/* AC_EVENT_INVALID */
	{ "invalid_request", 400, "parameter_invalid",
	  "タグのイベントの形式が正しくありません。" },
	/* AC_SMS_BODY_TOO_LONG */
	{ "invalid_request", 422, "sms_body_too_long",
	  "SMS本文がURLを展開した後で660文字を超えています。" },
	/* AC_REGEX_TOO_COMPLEX */
	{ "invalid_request", 422, "regex_too_complex",
	  "この正規表現は照合に時間がかかりすぎる可能性があります。繰り返しの入れ子や、繰り返すグループの中の | "
	  "を使わない形にしてください。" },
	/* AC_MESSAGE_IN_USE */
	{ "invalid_request", 409, "message_in_use",
	  "このメッセージはシナリオのステップで使われているため削除できません。" },
	/* AC_SCENARIO_ACTIVE */
	{ "invalid_request", 409, "scenario_active",
	  "有効なシナリオは削除できません。先に停止してください。" },
	/* AC_SCENARIO_NOT_SENDABLE */
	{ "invalid_request", 422, "scenario_not_sendable",
	  "有効なシナリオを送信できない内容（ステップなし、件名や本文なし、"
	  "【店舗名】の置き換え忘れ、長すぎるSMSなど）には変更できません。" },
	/* AC_SUPPRESSION_EXISTS */
	{ "invalid_request", 409, "suppression_exists",
	  "同じ範囲の有効な配信停止が既に登録されています。" },
	/* AC_SUPPRESSION_NOT_DELETABLE */
	{ "invalid_request", 409, "suppression_not_deletable",
	  "受信者の配信停止や苦情による登録は削除できません。" },
	/* AC_ORIGIN_NOT_ALLOWED */
	{ "invalid_request", 400, "origin_not_allowed",
	  "このサイトのドメイン以外のページからのイベントは受け付けません。" },
	/* AC_INVALID_WEBHOOK_URL */
	{ "invalid_request", 422, "invalid_webhook_url",
	  "Webhook の URL は https で、内部アドレス以外のホストを指定してください。" },
	/* AC_UNKNOWN_EVENT */
	{ "invalid_request", 422, "unknown_event",
	  "定義されていないイベント種別が含まれています。" },
	/* AC_WEBHOOK_ENDPOINT_DISABLED */
	{ "invalid_request", 409, "webhook_endpoint_disabled",
	  "この Webhook エンドポイントは停止されているため再送できません。" },
	/* AC_SESSION_INVALID */
	{ "authentication_error", 401, "session_invalid",
	  "ログインの有効期限が切れたか、ログアウトされています。もう一度ログインしてください。" },
	/* AC_CSRF_TOKEN_INVALID */
	{ "permission_error", 403, "csrf_token_invalid",
	  "X-CSRF-Token ヘッダーがないか正しくありません。画面を読み込み直してください。" },
	/* AC_SESSION_ORIGIN */
	{ "permission_error", 403, "origin_not_allowed",
	  "管理画面以外のページからの変更は受け付けません。" },
	/* AC_SIGNIN_FAILED */
	{ "authentication_error", 401, "signin_failed",
	  "メールアドレスまたはパスワードが正しくありません。" },
	/* AC_SIGNIN_THROTTLED */
	{ "rate_limit_error", 429, "signin_throttled",
	  "ログインの失敗が続いたため、しばらく受け付けません。Retry-After 秒待ってから再度お試しください。" },
	/* AC_TENANT_REQUIRED */
	{ "invalid_request", 409, "tenant_required",
	  "このメールアドレスは複数のアカウントに登録されています。tenant_id を指定してください。" },
	/* AC_PASSWORD_TOO_WEAK */
	{ "invalid_request", 422, "password_too_weak",
	  "パスワードは12文字以上で、メールアドレスと異なるものにしてください。" },
	/* AC_INVITATION_INVALID */
	{ "invalid_request", 422, "invitation_invalid",
	  "このリンクは無効です(期限切れ、使用済み、または誤り)。新しい招待またはパスワード再設定を依頼してください。" },
	/* AC_ROLE_INSUFFICIENT */
	{ "permission_error", 403, "role_insufficient",
	  "あなたの権限ではこの操作はできません。" },
	/* AC_LAST_OWNER */
	{ "invalid_request", 409, "last_owner",
	  "最後のオーナーは停止、削除、権限の変更ができません。先に別のメンバーをオーナーにしてください。" },
	/* AC_MEMBER_EXISTS */
	{ "invalid_request", 409, "member_exists",
	  "このメールアドレスのメンバーは既に登録されています。" },
	/* AC_CAMPAIGN_NOT_READY */
	{ "invalid_request", 422, "campaign_not_ready",
	  "キャンペーンを有効にする条件(URLルール、送信できる有効なシナリオ)が揃っていません。" },
	/* AC_CSV_INVALID */
	{ "invalid_request", 422, "csv_invalid",
	  "CSV を読み取れません(UTF-8 または Shift_JIS で、引用符が閉じていること)。param の body:N は N "
	  "件目のレコードです。何も登録していません。" },
	/* AC_CSV_TOO_MANY_ROWS */
	{ "invalid_request", 422, "csv_too_many_rows",
	  "一度に取り込めるのは 10,000 行までです。ファイルを分けてください。何も登録していません。" },
	/* AC_TEST_RECIPIENT_EXISTS */
	{ "invalid_request", 409, "test_recipient_exists",
	  "このテスト送信先は既に登録されています。" },
	/* AC_CONFIRMATION_CODE_INVALID */
	{ "invalid_request", 422, "confirmation_code_invalid",
	  "確認コードが正しくないか、期限(30分)が切れています。5回間違えた場合は送信先を登録し直してください。" },
	/* AC_NO_TEST_RECIPIENTS */
	{ "invalid_request", 422, "no_test_recipients",
	  "このチャネルの確認済みテスト送信先がありません。管理画面で登録し、確認コードを入力してください。" },
	/* AC_QUARANTINE_DECIDED */
	{ "invalid_request", 409, "quarantine_decided",
	  "この保留は既に送信再開または破棄されています。" },
	/* AC_TWO_FACTOR_REQUIRED */
	{ "permission_error", 403, "two_factor_required",
	  "このアカウントでは2段階認証が必須です。アカウント画面で2段階認証を設定するまで、ほかの操作はできません。" },
	/* AC_TWO_FACTOR_FAILED */
	{ "authentication_error", 401, "two_factor_failed",
	  "確認コードまたはリカバリーコードが正しくありません。" },
	/* AC_CHALLENGE_INVALID */
	{ "authentication_error", 401, "two_factor_challenge_invalid",
	  "ログインの確認の期限(5分)が切れたか、使用済みです。もう一度パスワードからログインしてください。" },
	/* AC_TOTP_ALREADY_ENABLED */
	{ "invalid_request", 409, "totp_already_enabled",
	  "2段階認証は既に有効です。設定し直すには、先に無効にしてください。" },
	/* AC_TOTP_NOT_STARTED */
	{ "invalid_request", 409, "totp_not_started",
	  "2段階認証の設定が始まっていません。最初からやり直してください。" },
	/* AC_TOTP_NOT_ENABLED */
	{ "invalid_request", 409, "totp_not_enabled",
	  "2段階認証は有効になっていません。" },
	/* AC_TOTP_CODE_INVALID */
	{ "invalid_request", 422, "totp_code_invalid",
	  "確認コードが正しくないか、既に使われています。認証アプリに表示されている6桁の数字を入力してください。" },
	/* AC_PASSWORD_INVALID */
	{ "invalid_request", 422, "password_invalid",
	  "パスワードが正しくありません。" },
	/* AC_TWO_FACTOR_ENROL_FIRST */
	{ "invalid_request", 409, "two_factor_enrol_first",
	  "メンバー全員に2段階認証を必須にする前に、ご自身の2段階認証を有効にしてください。" },
	/* AC_SIGNATURE_INVALID: a provider's callback not signed (issue 44) */
	{ "permission_error", 403, "signature_invalid",
	  "署名が正しくありません。" },
	/* AC_INTERNAL */
	{ "api_error", 500, "internal_error",
	  "サーバーでエラーが発生しました。時間をおいて再度お試しください。" },
	/* AC_UNAVAILABLE */
	{ "api_error", 503, "service_unavailable",
	  "ただいま混み合っています。時間をおいて再度お試しください(POSTは同じ Idempotency-Key で)。" },
};
