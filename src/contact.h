/*
 * Contacts as people type them (design 6; contract: conventions 4):
 * normalising and masking Japanese phone numbers and email addresses,
 * finding them in text, and the ASCII form of a domain name, which both
 * an email's domain and a URL's host take.  A leaf: url.c and pii.c
 * build on it.
 */
#ifndef FORMBACK_CONTACT_H
#define FORMBACK_CONTACT_H

#include <stddef.h>

#include "formback.h"

enum tel_kind { TEL_MOBILE = 0, TEL_IP, TEL_LANDLINE, TEL_KIND__MAX };
extern const char *const tel_kind_names[TEL_KIND__MAX];

/*
 * Normalise a Japanese phone number as typed (full-width digits, hyphens
 * and spaces of any width, parentheses, +81 or 81 prefixes) to its
 * domestic digits "09012345678" (10 or 11 digits, leading 0).  The kind
 * is mobile for 070/080/090, ip for 050, landline otherwise (11-digit
 * numbers other than those, and those with a 0 after the prefix, which
 * the numbering plan never gives anyone, are refused).  Returns false
 * for anything that is not such a number.
 */
bool	contact_tel_normalize(const char *in, char out[16], enum tel_kind *);
/*
 * Normalise an email address: trimmed, one '@', a non-empty local part
 * of at most 64 bytes kept as typed (UTF-8 too, RFC 6531), a domain with
 * a dot, in its ASCII form (an internationalised one by IDNA, UTS #46,
 * non-transitional, which maps full-width letters and dots too: RFC
 * 5890, 5321 2.3.5) and lower-cased; at most 254 bytes in all.  Every
 * spelling of one address so gives one blind index.  Returns false
 * otherwise (also for a domain IDNA refuses).
 */
bool	contact_email_normalize(const char *in, char out[256]);
/*
 * Does the text s[0..n) (already percent-decoded) hold what looks like a
 * contact anywhere in it: an email address ("x@y.z", '@' ASCII or
 * full-width) or a Japanese phone number (a run of digits, ASCII or
 * full-width, with the separators people type between them, that
 * contact_tel_normalize() reads as 10 or 11 domestic digits)?  Used to
 * scrub URLs before they are stored (url_scrub()).
 */
bool	contact_in_text(const char *s, size_t n);
/* "090-****-5678": first and last groups kept (contract: conventions 4). */
void	contact_tel_mask(const char *norm, char out[32]);
/*
 * "ta***@example.jp": the first 2 characters of a local part longer than
 * 3, 1 of one of 2 or 3, none of one of 1 (never the whole of it:
 * contract, conventions 4), whole UTF-8 characters, then the domain (an
 * internationalised one as it is read, "ta***@例え.jp", when that fits).
 */
void	contact_email_mask(const char *norm, char out[300]);

/*
 * The ASCII form of the domain name in[0..n) (UTF-8) into out (outsz
 * bytes, NUL-terminated; out may be in): as it is when it is all ASCII,
 * else by IDNA (UTS #46, non-transitional, as browsers: RFC 5890), which
 * maps full-width letters and dots too.  Its working copies are wiped
 * (contacts' domains pass through it).  Returns false when IDNA refuses
 * the name or its form does not fit; out is then "".
 */
bool	domain_ascii(const char *in, size_t n, char *out, size_t outsz);

#endif
