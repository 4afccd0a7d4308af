/*
 * ops/personal.c: data-subject requests (issue 43), as formbackctl
 * personal-data and the admin API (POST /api/v1/admin/personal_data/
 * export and /erase) both make them: everything held about one contact,
 * found by its blind index, written out (APPI art. 33 disclosure with its
 * records of provision to third parties, GDPR art. 15 access) or erased
 * (APPI art. 35, GDPR art. 17).  The rules and what stays for the
 * reports: docs/internals/privacy.md.
 *
 * In the caller's transaction: the caller began it, writes the audit row
 * (with the blind index, never the contact) and commits or rolls back;
 * nothing here begins, commits or prints (docs/internals/ops-and-ctl.md).
 */
#ifndef OPS_PERSONAL_H
#define OPS_PERSONAL_H

#include "formback.h"
#include "pii.h"

struct db;

/* The contact a request names, as capture keys it (contact_key()). */
struct pd_subject {
	const char	*kind;		/* "email" or "tel" (static) */
	struct bidx	 bidx;		/* both slots (pii.h) */
	/* for the audit: the index of the slot in force */
	char		 bidx_hex[2 * PII_BIDXBYTES + 1];
	char		 masked[300];
};

/*
 * The contact as typed (normalised as capture normalises it: a phone
 * number when it reads as one, else an email address) into s, keyed for
 * `tenant` with the blind index keys the process holds (bidx_cur():
 * the caller read them with bidx_refresh()).  Returns false when it is
 * neither; s is then zeroed.  The clear value is not kept.
 */
bool	pd_subject(const struct conf *, const char *tenant,
	    const char *contact, struct pd_subject *s) FB_WUR;

/*
 * Write the export's members into the object open in j (the caller
 * opened it and closes it): "object" "personal_data_export", "subject"
 * (kind, masked), "contacts" (every contact of the leads found, opened:
 * the person's copy, GDPR art. 15(3)), "leads" (each with its fields,
 * contacts masked, its deliveries, the visitor's events and the webhook
 * deliveries that named it), "suppressions", "test_recipients",
 * "consent" (the settings in force; Formback keeps no copy of the text a
 * visitor was shown) and "found" (counts per kind).  At most PD_ROWS_MAX
 * rows of each kind a lead; "truncated" says when a list was cut.
 * Errors: the database's; the writer's sticks in j (jgen_end()).
 */
enum fb_err	pd_export(struct db *, const struct conf *, const char *tenant,
		    const struct pd_subject *, struct jgen *j) FB_WUR;

/* What an erasure changed, per kind (0 everywhere: nothing was left). */
struct pd_erased {
	unsigned long long leads;		/* contacts and links removed */
	unsigned long long events;		/* made anonymous */
	unsigned long long deliveries_cancelled; /* scheduled, now cancelled */
	unsigned long long deliveries_masked;	/* destination removed */
	unsigned long long webhook_payloads;	/* contact members removed */
	unsigned long long test_recipients;	/* removed */
	unsigned long long suppressions_removed; /* stop false */
	/* stop: stripped to the index */
	unsigned long long suppressions_kept;
	unsigned long long suppressions_added;	/* stop: none was in force */
};

/*
 * Erase what is held about the subject in the tenant (privacy.md): its
 * leads' sealed contacts, blind indexes and links to the visitor, the
 * visitors' events made anonymous, scheduled deliveries cancelled
 * ("erased") and every delivery masked, contact members removed from
 * the webhook payloads naming the leads, its test recipients removed,
 * and its suppressions removed, or with `stop` kept by blind index only
 * (one added, tenant-wide opt_out, when none is in force).  The same
 * for each other contact its leads held.  Counts into *out.  Errors:
 * the database's.
 */
enum fb_err	pd_erase(struct db *, const char *tenant,
		    const struct pd_subject *, bool stop,
		    struct pd_erased *out) FB_WUR;

/*
 * The erasure's answer members into the object open in j: "object"
 * "personal_data_erasure", "subject" (kind, masked), "stop", "erased"
 * (the counts) and "found" (false when nothing was left to erase).
 */
void	pd_erased_json(struct jgen *j, const struct pd_subject *, bool stop,
	    const struct pd_erased *);

#endif
