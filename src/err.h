/*
 * Errors: the internal enum returned by value, and the public catalog
 * of the contract's error envelope (contract: Errors).  Implemented in
 * err.c.
 */
#ifndef FB_ERR_H
#define FB_ERR_H

#include "cdefs.h"

/*
 * Internal errors, returned by value.  fb_strerror() gives a short
 * English text for logs; details go to the log at the point of failure.
 */
enum fb_err {
	FB_OK = 0,
	FB_ENOMEM,	/* allocation failed or a buffer cap was reached */
	FB_EDB,		/* database error (logged) */
	/* deadlock or lock wait timeout: retry the transaction */
	FB_ERETRY,
	FB_EGONE,	/* database connection lost */
	FB_ENOTFOUND,	/* no such row */
	FB_EDUP,	/* unique key violation */
	FB_EINVAL,	/* invalid argument */
	FB_ECONF,	/* bad configuration */
	FB_ECRYPTO,	/* crypto failure */
	FB_EIO,		/* file or network i/o */
	/* no error: the work rolled back on purpose (db_tx()) */
	FB_UNDONE,
	FB_ERR__MAX
};

/* Text for an internal error; never NULL. */
const char *fb_strerror(enum fb_err);

/*
 * The public error catalog (contract: Errors).  Each code has a type, an
 * HTTP status and a Japanese message.  api_codes[] is indexed by enum
 * api_code and has no empty slot (unit test).
 */
enum api_code {
	AC_INVALID_JSON = 0,
	AC_BODY_TOO_LARGE,
	AC_PARAMETER_MISSING,
	AC_PARAMETER_INVALID,
	AC_QUERY_INVALID,
	AC_PATH_INVALID,
	AC_CURSOR_INVALID,
	AC_METHOD_NOT_ALLOWED,
	AC_PRECONDITION_FAILED,
	AC_LENGTH_REQUIRED,
	AC_BAD_REQUEST,
	AC_API_KEY_MISSING,
	AC_API_KEY_INVALID,
	AC_API_KEY_REVOKED,
	AC_API_KEY_IN_QUERY,
	AC_API_KEY_CREATOR_INACTIVE,
	AC_SCOPE_INSUFFICIENT,
	AC_PLAN_LIMIT_EXCEEDED,
	AC_SESSION_REQUIRED,
	AC_NOT_FOUND,
	AC_RATE_LIMIT,
	AC_API_KEY_DRAFT_ONLY,
	AC_IDEMPOTENCY_KEY_IN_PROGRESS,
	AC_IDEMPOTENCY_KEY_REUSED,
	AC_IDEMPOTENCY_KEY_INVALID,
	AC_CAMPAIGN_KEY_TAKEN,
	AC_EVENT_INVALID,
	AC_SMS_BODY_TOO_LONG,
	AC_REGEX_TOO_COMPLEX,
	AC_MESSAGE_IN_USE,
	AC_SCENARIO_ACTIVE,
	AC_SCENARIO_NOT_SENDABLE,
	AC_SUPPRESSION_EXISTS,
	AC_SUPPRESSION_NOT_DELETABLE,
	AC_ORIGIN_NOT_ALLOWED,
	AC_INVALID_WEBHOOK_URL,
	AC_UNKNOWN_EVENT,
	AC_WEBHOOK_ENDPOINT_DISABLED,
	/* members' sessions (issue 16; beyond the contract's enumeration) */
	AC_SESSION_INVALID,
	AC_CSRF_TOKEN_INVALID,
	AC_SESSION_ORIGIN,
	AC_SIGNIN_FAILED,
	AC_SIGNIN_THROTTLED,
	AC_TENANT_REQUIRED,
	AC_PASSWORD_TOO_WEAK,
	AC_INVITATION_INVALID,
	AC_ROLE_INSUFFICIENT,
	AC_LAST_OWNER,
	AC_MEMBER_EXISTS,
	AC_CAMPAIGN_NOT_READY,
	AC_CSV_INVALID,
	AC_CSV_TOO_MANY_ROWS,
	AC_TEST_RECIPIENT_EXISTS,
	AC_CONFIRMATION_CODE_INVALID,
	AC_NO_TEST_RECIPIENTS,
	AC_QUARANTINE_DECIDED,
	/* two-factor sign-in (issue 43, item 4) */
	AC_TWO_FACTOR_REQUIRED,
	AC_TWO_FACTOR_FAILED,
	AC_CHALLENGE_INVALID,
	AC_TOTP_ALREADY_ENABLED,
	AC_TOTP_NOT_STARTED,
	AC_TOTP_NOT_ENABLED,
	AC_TOTP_CODE_INVALID,
	AC_PASSWORD_INVALID,
	AC_TWO_FACTOR_ENROL_FIRST,
	AC_SIGNATURE_INVALID,
	AC_INTERNAL,
	AC_UNAVAILABLE,
	API_CODE__MAX
};

struct api_code_def {
	const char	*type;		/* contract error.type */
	int		 status;	/* HTTP status */
	const char	*code;		/* contract error.code */
	const char	*message_ja;	/* error.message */
};

extern const struct api_code_def api_codes[API_CODE__MAX];

#endif /* FB_ERR_H */
