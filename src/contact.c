/*
 * Contacts as people type them: Japanese phone numbers and email
 * addresses normalised and masked, found in text, and the ASCII form of
 * a domain (see contact.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <idn2.h>
#include <sodium.h>

#include "contact.h"

const char *const tel_kind_names[TEL_KIND__MAX] = {
	/* TEL_MOBILE */	"mobile",
	/* TEL_IP */		"ip",
	/* TEL_LANDLINE */	"landline",
};

/* Separators people type in phone numbers, ASCII and full-width. */
static const char *const tel_seps[] = {
	"-", " ", "(", ")", ".", "\xe3\x83\xbc" /* ー */, "\xef\xbc\x8d" /* － */,
	"\xe2\x80\x90" /* ‐ */, "\xe2\x80\x91", "\xe2\x80\x92", "\xe2\x80\x93",
	"\xe2\x80\x94", "\xe2\x88\x92" /* − */, "\xe3\x80\x80" /* 　 */,
	"\xef\xbc\x88" /* （ */, "\xef\xbc\x89" /* ） */, "\xef\xbd\xb0" /* ｰ */,
};

bool
contact_tel_normalize(const char *in, char out[16], enum tel_kind *kind)
{
	char		 d[32];
	size_t		 n = 0, i, len;
	const char	*p = in;
	bool		 plus = false, sep;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '+') {
		plus = true;
		p++;
	} else if (strncmp(p, "\xef\xbc\x8b", 3) == 0) {	/* ＋ */
		plus = true;
		p += 3;
	}
	while (*p != '\0') {
		if (*p >= '0' && *p <= '9') {
			if (n + 1 >= sizeof(d))
				return false;
			d[n++] = *p++;
			continue;
		}
		if ((unsigned char)p[0] == 0xef &&
		    (unsigned char)p[1] == 0xbc &&
		    (unsigned char)p[2] >= 0x90 &&
		    (unsigned char)p[2] <= 0x99) {
			if (n + 1 >= sizeof(d))
				return false;
			d[n++] = (char)('0' + (unsigned char)p[2] - 0x90);
			p += 3;
			continue;
		}
		for (sep = false, i = 0; i < NELEM(tel_seps); i++) {
			len = strlen(tel_seps[i]);
			if (strncmp(p, tel_seps[i], len) == 0) {
				p += len;
				sep = true;
				break;
			}
		}
		if (!sep)
			return false;
	}
	d[n] = '\0';
	/* +81 90..., 81 90..., +81 (0)90...: the domestic form */
	if (plus || (n >= 11 && strncmp(d, "81", 2) == 0 && d[2] != '0')) {
		if (strncmp(d, "81", 2) != 0)
			return false;
		memmove(d + 1, d + 2, n - 1);
		d[0] = '0';
		n--;
		if (d[1] == '0') {	/* +81 0 90 */
			memmove(d + 1, d + 2, n - 1);
			n--;
		}
	}
	if (d[0] != '0' || (n != 10 && n != 11) || d[1] == '0')
		return false;
	if (n == 11) {
		/*
		 * 070, 080, 090 are mobile, 050 IP phones; no number of them
		 * has a 0 after the prefix (the plan of the Ministry of
		 * Internal Affairs and Communications): one that has cannot
		 * be anyone's, and an SMS to it is never sent (issue 11)
		 */
		if (d[3] == '0')
			return false;
		if (strncmp(d, "070", 3) == 0 || strncmp(d, "080", 3) == 0 ||
		    strncmp(d, "090", 3) == 0)
			*kind = TEL_MOBILE;
		else if (strncmp(d, "050", 3) == 0)
			*kind = TEL_IP;
		else
			return false;
	} else
		*kind = TEL_LANDLINE;
	memcpy(out, d, n + 1);
	return true;
}

/* Length of the digit (ASCII or full-width) at s, or 0. */
static size_t
digit_at(const char *s, const char *end)
{
	if (s < end && *s >= '0' && *s <= '9')
		return 1;
	if (end - s >= 3 && (unsigned char)s[0] == 0xef &&
	    (unsigned char)s[1] == 0xbc && (unsigned char)s[2] >= 0x90 &&
	    (unsigned char)s[2] <= 0x99)
		return 3;
	return 0;
}

/* Length of the phone separator at s, or 0. */
static size_t
tel_sep_at(const char *s, const char *end)
{
	size_t	 i, len;

	for (i = 0; i < NELEM(tel_seps); i++) {
		len = strlen(tel_seps[i]);
		if ((size_t)(end - s) >= len &&
		    memcmp(s, tel_seps[i], len) == 0)
			return len;
	}
	return 0;
}

static bool	tel_run(const char *, const char *);

static bool
email_char(unsigned char c)
{
	return isalnum(c) || strchr("._%+-", c) != NULL;
}

bool
contact_in_text(const char *s, size_t n)
{
	const char	*end = s + n, *p, *q;
	size_t		 d, k, at;
	bool		 prev_digit = false;

	/* an email address: local characters, '@', a domain with a dot */
	for (p = s; p < end; p++) {
		at = *p == '@' ? 1 : end - p >= 3 &&
		    (unsigned char)p[0] == 0xef &&
		    (unsigned char)p[1] == 0xbc &&
		    (unsigned char)p[2] == 0xa0 ? 3 : 0;
		if (at == 0 || p == s || !email_char((unsigned char)p[-1]))
			continue;
		for (q = p + at, d = 0; q < end &&
		    (isalnum((unsigned char)*q) ||
		    *q == '-' || *q == '.'); q++)
			if (*q == '.' && q > p + at && q + 1 < end &&
			    isalnum((unsigned char)q[1]))
				d++;
		if (d > 0)
			return true;
	}
	/*
	 * A phone number: from each digit (or '+') that no digit precedes,
	 * the run of digits and separators after it, or the part of the run
	 * before one of its separators, read as a number.
	 */
	for (p = s; p < end; p += k) {
		k = digit_at(p, end);
		if ((k > 0 || *p == '+') && !prev_digit && tel_run(p, end))
			return true;
		prev_digit = k > 0;
		if (k == 0)
			k = 1;
	}
	return false;
}

/* contact_in_text(): is the run of digits and separators at p a number? */
static bool
tel_run(const char *p, const char *end)
{
	char		 run[64], norm[16];
	const char	*q = p;
	size_t		 d, o = 0;
	enum tel_kind	 kind;
	bool		 sep, found = false;

	while (!found && q < end && o + 4 < sizeof(run)) {
		sep = false;
		if ((d = digit_at(q, end)) == 0 && q == p && *q == '+')
			d = 1;
		else if (d == 0 && (d = tel_sep_at(q, end)) != 0)
			sep = true;
		if (d == 0)
			break;
		/* the part before a separator may be the number */
		if (sep && o > 0) {
			run[o] = '\0';
			found = contact_tel_normalize(run, norm, &kind);
		}
		memcpy(run + o, q, d);
		o += d;
		q += d;
	}
	run[o] = '\0';
	if (!found)
		found = contact_tel_normalize(run, norm, &kind);
	sodium_memzero(run, sizeof(run));
	sodium_memzero(norm, sizeof(norm));
	return found;
}

bool
contact_email_normalize(const char *in, char out[256])
{
	const char	*s = in, *at, *e;
	char		 dom[256];
	size_t		 n, local, dn, i;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	n = (size_t)(e - s);
	if (n == 0 || n > 254)
		return false;
	if ((at = memchr(s, '@', n)) == NULL ||
	    memchr(at + 1, '@', (size_t)(e - at - 1)) != NULL)
		return false;
	local = (size_t)(at - s);
	if (local == 0 || local > 64)
		return false;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || s[i] == 0x7f ||
		    s[i] == '<' ||
		    s[i] == '>' || s[i] == '"' || s[i] == ',' || s[i] == ';' ||
		    s[i] == '\\')
			return false;
	/*
	 * An internationalised domain in its ASCII form, as SMTP carries it
	 * (RFC 5890, 5321 2.3.5), so that every spelling of one address has
	 * one blind index.
	 */
	if (!domain_ascii(at + 1, (size_t)(e - at - 1), dom, sizeof(dom)))
		return false;
	dn = strlen(dom);
	if (dn < 3 || local + 1 + dn > 254 || memchr(dom, '.', dn) == NULL ||
	    dom[0] == '.' || dom[dn - 1] == '.') {
		sodium_memzero(dom, sizeof(dom));
		return false;
	}
	memcpy(out, s, local + 1);
	for (i = 0; i < dn; i++)
		out[local + 1 + i] = (char)tolower((unsigned char)dom[i]);
	out[local + 1 + dn] = '\0';
	sodium_memzero(dom, sizeof(dom));
	return true;
}

void
contact_tel_mask(const char *d, char out[32])
{
	size_t	 n = strlen(d), first, last = 4, i, o = 0;

	if (n == 11)
		first = 3;
	else if (strncmp(d, "0120", 4) == 0 || strncmp(d, "0800", 4) == 0)
		first = 4, last = 3;
	else if (strncmp(d, "03", 2) == 0 || strncmp(d, "06", 2) == 0)
		first = 2;
	else
		first = 3;
	if (n <= first + last) {
		snprintf(out, 32, "****");
		return;
	}
	for (i = 0; i < first; i++)
		out[o++] = d[i];
	out[o++] = '-';
	for (i = first; i < n - last; i++)
		out[o++] = '*';
	out[o++] = '-';
	for (i = n - last; i < n; i++)
		out[o++] = d[i];
	out[o] = '\0';
}

void
contact_email_mask(const char *e, char out[300])
{
	const char	*at = strchr(e, '@');
	char		*u = NULL;
	size_t		 chars = 0, keep, k, i;

	if (at == NULL || at == e) {
		snprintf(out, 300, "***");
		return;
	}
	/*
	 * characters, not bytes: a local part kept as typed may be UTF-8
	 * (RFC 6531), and half a character is no text to store or show
	 */
	for (i = 0; e + i < at; i++)
		if (((unsigned char)e[i] & 0xc0) != 0x80)
			chars++;
	/* never the whole local part (contract: conventions 4) */
	keep = chars > 3 ? 2 : chars > 1 ? 1 : 0;
	for (i = 0, k = 0; e + i < at; i++)
		if (((unsigned char)e[i] & 0xc0) != 0x80 && k++ == keep)
			break;
	/* an internationalised domain shown as it is read (RFC 5890 2.3.2.1) */
	if (strstr(at + 1, "xn--") != NULL &&
	    idn2_to_unicode_8z8z(at + 1, &u, 0) == IDN2_OK &&
	    i + 4 + strlen(u) < 300)
		snprintf(out, 300, "%.*s***@%s", (int)i, e, u);
	else
		snprintf(out, 300, "%.*s***%s", (int)i, e, at);
	idn2_free(u);
}

bool
domain_ascii(const char *in, size_t n, char *out, size_t outsz)
{
	char		 raw[512], *ascii = NULL;
	size_t		 i, an;
	bool		 ok;

	for (i = 0; i < n && (unsigned char)in[i] < 0x80; i++)
		continue;
	if (i == n) {
		if ((ok = n < outsz))
			memmove(out, in, n);
		out[ok ? n : 0] = '\0';
		return ok;
	}
	if (n >= sizeof(raw)) {
		out[0] = '\0';
		return false;
	}
	memcpy(raw, in, n);
	raw[n] = '\0';
	ok = idn2_to_ascii_8z(raw, &ascii, IDN2_NFC_INPUT |
	    IDN2_NONTRANSITIONAL) == IDN2_OK && (an = strlen(ascii)) < outsz;
	if (ok)
		memcpy(out, ascii, an + 1);
	else
		out[0] = '\0';
	sodium_memzero(raw, sizeof(raw));
	if (ascii != NULL) {
		sodium_memzero(ascii, strlen(ascii));
		idn2_free(ascii);
	}
	return ok;
}
