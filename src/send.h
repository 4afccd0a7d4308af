/*
 * The outside services (design 5): email by SMTP (send.c) and the
 * outcome every send shares; SMS goes through the drivers of sms.h
 * (sms.c).  All through libcurl.
 */
#ifndef FORMBACK_SEND_H
#define FORMBACK_SEND_H

#include <curl/curl.h>

#include "formback.h"

struct db;

#define SEND_TIMEOUT	30	/* seconds a provider's call may take at most */

/*
 * A pass's libcurl handle *h, made on its first use and reset before each
 * later one, so that a pass keeps its connection to the provider.  NULL
 * when libcurl cannot make one.  *h is the caller's (a static of its
 * file), kept for the process's life.
 */
CURL		*send_handle(CURL **h);

enum send_result {
	SEND_OK = 0,		/* accepted by the provider */
	/* 5xx or a broken connection: try again later */
	SEND_RETRY,
	/* refused for good (4xx, a refused recipient) */
	SEND_FAIL,
};

/*
 * Send one email to `to` through smtp_url as smtp_from: UTF-8, the
 * subject MIME-encoded (RFC 2047), a text and an HTML part, and, when
 * `unsubscribe` is set, List-Unsubscribe and List-Unsubscribe-Post (RFC
 * 8058).  With a `reference` (a delivery id) the Message-ID is
 * <reference@domain of smtp_from>, so a provider's receipt that quotes it
 * names the delivery; else it is random.  `error` receives a short code
 * on failure.
 */
enum send_result send_email(const struct conf *, const char *to,
	    const char *subject, const char *text, const char *html,
	    const char *unsubscribe, const char *reference, char *error,
	    size_t errsz);
/*
 * The value of an email's Subject header for `subject` (UTF-8) into b:
 * RFC 2047 encoded words ("=?UTF-8?B?...?="), each at most 75 characters
 * and holding whole characters (section 5), the first short enough that
 * "Subject: " and it make at most 76 (section 2), the others each on a
 * folded line ("\r\n ", RFC 5322 2.2.3).  "" for an empty subject.
 * False when b is full.
 */
bool		mail_subject(struct buf *b, const char *subject);
/*
 * Send the outbox's operator emails (URL takeover notices, usage alerts)
 * to the owners and admins each row names who are still active, and mark
 * the rows processed; rows another pass holds are skipped, a row whose
 * send must be retried stays for the next pass.  `sent` receives the
 * number of emails sent.  Returns a database error, else FB_OK.
 */
enum fb_err	opmail_pass(struct db *, const struct conf *, int *sent);
/*
 * Mail the members' one-time links not yet sent (issue 16: invitations,
 * password resets): each gets a new token, only its hash is kept, the
 * email says where to set the password and until when.  A link whose
 * send fails stays unsent for the next pass.  *sent counts the emails.
 * First it purges what members' sign-in keeps past its retention
 * (db_member_purge()).
 */
enum fb_err	invitation_pass(struct db *, const struct conf *, int *sent);

#endif
