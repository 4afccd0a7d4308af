/* pii.c: normalising, masking (contract: conventions 4), sealing. */
#include <string.h>

#include <criterion/criterion.h>
#include <sodium.h>

#include "../../src/pii.h"

static void
tel(const char *in, const char *want, enum tel_kind kind)
{
	char		 out[16];
	enum tel_kind	 k;

	cr_assert(contact_tel_normalize(in, out, &k), "refused %s", in);
	cr_assert_str_eq(out, want, "%s", in);
	cr_assert_eq(k, kind, "%s", in);
}

Test(pii, tel_normalize)
{
	char		 out[16];
	enum tel_kind	 k;

	tel("090-1234-5678", "09012345678", TEL_MOBILE);
	tel("０９０－１２３４－５６７８", "09012345678", TEL_MOBILE);
	tel("080 1111 2222", "08011112222", TEL_MOBILE);
	tel("+81 90-1234-5678", "09012345678", TEL_MOBILE);
	tel("+81 (0)70 1234 5678", "07012345678", TEL_MOBILE);
	tel("819012345678", "09012345678", TEL_MOBILE);
	tel("050-1234-5678", "05012345678", TEL_IP);
	tel("03-1234-5678", "0312345678", TEL_LANDLINE);
	tel("(045)123-4567", "0451234567", TEL_LANDLINE);
	tel("0120-123-456", "0120123456", TEL_LANDLINE);
	cr_assert(!contact_tel_normalize("1234", out, &k));
	cr_assert(!contact_tel_normalize("090-1234-567x", out, &k));
	cr_assert(!contact_tel_normalize("06012345678", out, &k));
	/* a 0 after the mobile or IP prefix is nobody's number: never an SMS */
	cr_assert(!contact_tel_normalize("090-0123-4567", out, &k));
	cr_assert(!contact_tel_normalize("080-0000-0000", out, &k));
	cr_assert(!contact_tel_normalize("050-0123-4567", out, &k));
	cr_assert(!contact_tel_normalize("0901234567890", out, &k));
	cr_assert(!contact_tel_normalize("", out, &k));
	cr_assert(!contact_tel_normalize("+1 415 555 0100", out, &k));
}

Test(pii, email_normalize)
{
	char	 out[256];

	cr_assert(contact_email_normalize("  Taro.Yamada@Example.JP ", out));
	cr_assert_str_eq(out, "Taro.Yamada@example.jp");
	cr_assert(!contact_email_normalize("no-at.example.jp", out));
	cr_assert(!contact_email_normalize("a@b", out));
	cr_assert(!contact_email_normalize("a@@b.jp", out));
	cr_assert(!contact_email_normalize("@b.jp", out));
	cr_assert(!contact_email_normalize("a b@c.jp", out));
	cr_assert(!contact_email_normalize("a\x7f@c.jp", out));
	/* one address, one form: the domain in ASCII by IDNA (UTS #46) */
	cr_assert(contact_email_normalize("テスト@例え.jp", out));
	cr_assert_str_eq(out, "テスト@xn--r8jz45g.jp");
	cr_assert(contact_email_normalize("テスト@XN--R8JZ45G.JP", out));
	cr_assert_str_eq(out, "テスト@xn--r8jz45g.jp");
	cr_assert(contact_email_normalize("taro@ＥＸＡＭＰＬＥ．ｊｐ", out));
	cr_assert_str_eq(out, "taro@example.jp");
	cr_assert(contact_email_normalize("taro@例え．ＪＰ", out));
	cr_assert_str_eq(out, "taro@xn--r8jz45g.jp");
	cr_assert(!contact_email_normalize("taro@例え", out));
	cr_assert(!contact_email_normalize("taro@．jp", out));
	/* RLM: no IDNA */
	cr_assert(!contact_email_normalize("taro@a\xe2\x80\x8f.jp", out));
}

Test(pii, masks)
{
	char	 m[300];

	contact_tel_mask("09012345678", m);
	cr_assert_str_eq(m, "090-****-5678");
	contact_tel_mask("0312345678", m);
	cr_assert_str_eq(m, "03-****-5678");
	contact_tel_mask("0451234567", m);
	cr_assert_str_eq(m, "045-***-4567");
	contact_tel_mask("0120123456", m);
	cr_assert_str_eq(m, "0120-***-456");
	contact_email_mask("taro.yamada@example.jp", m);
	cr_assert_str_eq(m, "ta***@example.jp");
	contact_email_mask("ab@example.jp", m);
	cr_assert_str_eq(m, "a***@example.jp");
	contact_email_mask("taro@xn--r8jz45g.jp", m);
	cr_assert_str_eq(m, "ta***@例え.jp");
	/* a one-character local part is not shown whole */
	contact_email_mask("a@example.jp", m);
	cr_assert_str_eq(m, "***@example.jp");
	/*
	 * whole characters of a UTF-8 local part (RFC 6531), never half of one
	 */
	contact_email_mask("\xef\xbc\xb4\xef\xbd\x85\xef\xbd\x93\xef\xbd\x94"
	    "@example.jp", m);
	cr_assert_str_eq(m, "\xef\xbc\xb4\xef\xbd\x85***@example.jp");
	contact_email_mask("\xe5\xa4\xaa\xe9\x83\x8e@example.jp", m);
	cr_assert_str_eq(m, "\xe5\xa4\xaa***@example.jp");
}

Test(pii, seal_open_and_associated_data)
{
	unsigned char	 mk[32], other[32], s[PII_SEALED_MAX(64)];
	char		 out[64];
	size_t		 n;

	cr_assert(sodium_init() >= 0);
	randombytes_buf(mk, sizeof(mk));
	randombytes_buf(other, sizeof(other));
	n = pii_seal(mk, "t1", "r1", "tel", "09012345678", s);
	cr_assert_eq(n, PII_SEALED_MAX(11));
	cr_assert_null(memmem(s, n, "0901234", 7));
	cr_assert(pii_open(mk, "t1", "r1", "tel", s, n, out, sizeof(out)));
	cr_assert_str_eq(out, "09012345678");
	cr_assert(!pii_open(mk, "t2", "r1", "tel", s, n, out, sizeof(out)),
	    "other tenant");
	cr_assert(!pii_open(mk, "t1", "r2", "tel", s, n, out, sizeof(out)),
	    "other row");
	cr_assert(!pii_open(mk, "t1", "r1", "email", s, n, out, sizeof(out)),
	    "other field");
	cr_assert(!pii_open(other, "t1", "r1", "tel", s, n, out, sizeof(out)),
	    "other key");
	s[30] ^= 1;
	cr_assert(!pii_open(mk, "t1", "r1", "tel", s, n, out, sizeof(out)),
	    "tampered");
}

Test(pii, blind_index)
{
	unsigned char	 mk[32], a[32], b[32], c[32];

	randombytes_buf(mk, sizeof(mk));
	pii_blind_index(mk, "t1", "tel", "09012345678", a);
	pii_blind_index(mk, "t1", "tel", "09012345678", b);
	pii_blind_index(mk, "t2", "tel", "09012345678", c);
	cr_assert_eq(memcmp(a, b, 32), 0);
	cr_assert_neq(memcmp(a, c, 32), 0);
}

/*
 * contact_key: either kind as typed, the same index for any typing, nothing for
 * neither.
 */
Test(pii, contact_key)
{
	unsigned char	 mk[32] = { 7 }, a[PII_BIDXBYTES], b[PII_BIDXBYTES];
	char		 ma[300], mb[300];
	const char	*ka, *kb;

	cr_assert(contact_key(mk, "t1", "０９０-１２３４-５６７８", &ka, a, ma));
	cr_assert(contact_key(mk, "t1", "+81 90 1234 5678", &kb, b, mb));
	cr_assert_str_eq(ka, "tel");
	cr_assert_str_eq(kb, "tel");
	cr_assert_str_eq(ma, "090-****-5678");
	cr_assert_eq(memcmp(a, b, sizeof(a)), 0);
	cr_assert(contact_key(mk, "t1", "Taro@Example.JP", &ka, a, ma));
	cr_assert_str_eq(ka, "email");
	cr_assert(contact_key(mk, "t2", "Taro@Example.JP", &kb, b, mb));
	cr_assert_neq(memcmp(a, b, sizeof(a)), 0, "tenants share no index");
	cr_assert(!contact_key(mk, "t1", "not a contact", &ka, a, ma));
}

/* Contacts anywhere in a text (issue 11: URLs are scrubbed with it). */
Test(pii, contact_in_text)
{
	static const char *const yes[] = { "taro@example.jp",
	    "x hanako@mail.example.co.jp y",
	    "a\xef\xbc\xa0" "b.jp", "090-1234-5678", "call 03 1234 5678 now",
	    "+81 90 1234 5678", "(03)1234-5678",
	    "\xef\xbc\x90\xef\xbc\x99\xef\xbc\x90" "12345678", "1 0312345678",
	    "09012345678 2", "tel:0120-123-456" };
	static const char *const no[] = { "@shop", "a@b", "page 2",
	    "20261124-0001",
	    "1234567890123", "09012", "id=42", "2026-11-24", "0000000000" };
	size_t	 i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		cr_assert(contact_in_text(yes[i], strlen(yes[i])), "%s",
		    yes[i]);
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		cr_assert_not(contact_in_text(no[i], strlen(no[i])), "%s",
		    no[i]);
}

/* Three keys: 7 current, 5 and 0 earlier; the index key is 0's (lowest). */
static void
three_keys(struct conf *c, unsigned char k[3][32])
{
	memset(c, 0, sizeof(*c));
	randombytes_buf(k, 3 * 32);
	c->master_key = k[0];
	c->master_key_id = 7;
	c->old_keys[0] = k[1];
	c->old_key_ids[0] = 5;
	c->old_keys[1] = k[2];
	c->old_key_ids[1] = 0;
	c->nold_keys = 2;
	c->index_key = k[2];
}

/*
 * A rotation's opening (formback.conf(5) "KEY ROTATION"): the row's key
 * first, then any other key of the file, saying which opened it.
 */
Test(pii, open_any_key_of_the_file)
{
	unsigned char	 k[3][32], s[PII_SEALED_MAX(32)], other[32];
	struct conf	 c;
	char		 out[64];
	unsigned	 by = 99;
	size_t		 n;

	three_keys(&c, k);
	n = pii_seal(k[1], "t", "r", "tel", "09012345678", s);
	cr_assert(pii_open_any(&c, 5, "t", "r", "tel", s, n, out, sizeof(out),
	    &by));
	cr_assert_eq(by, 5);
	cr_assert_str_eq(out, "09012345678");
	/*
	 * the row names another key (a contact kept from before): still opens
	 */
	cr_assert(pii_open_any(&c, 7, "t", "r", "tel", s, n, out, sizeof(out),
	    &by));
	cr_assert_eq(by, 5);
	cr_assert(pii_open_any(&c, -1, "t", "r", "tel", s, n, out, sizeof(out),
	    NULL));
	/* moved to another row, or under a key the file no longer holds: no */
	cr_assert_not(pii_open_any(&c, 5, "t", "r2", "tel", s, n, out,
	    sizeof(out), NULL));
	randombytes_buf(other, sizeof(other));
	n = pii_seal(other, "t", "r", "tel", "09012345678", s);
	cr_assert_not(pii_open_any(&c, 5, "t", "r", "tel", s, n, out,
	    sizeof(out), NULL));
	cr_assert_not(pii_open_any(&c, 5, "t", "r", "tel", NULL, 0, out,
	    sizeof(out), NULL));
}

/*
 * contact_bidx: one index a slot with a key, each its key's (the same as
 * contact_key() under it), none for a slot without; the signing key the
 * slot in force's.
 */
Test(pii, contact_bidx_two_slots)
{
	unsigned char	 k0[32] = { 1 }, k7[32] = { 7 }, a[PII_BIDXBYTES];
	struct bidx_keys k = { { k0, k7 }, { 0, 7 }, 0 };
	struct bidx	 b;
	char		 m[300], ma[300];
	const char	*kind, *ka;

	cr_assert(contact_bidx(&k, "t1", "090-1234-5678", &kind, &b, m));
	cr_assert(b.has[0] && b.has[1]);
	cr_assert_eq(b.key[0], 0);
	cr_assert_eq(b.key[1], 7);
	cr_assert(contact_key(k7, "t1", "+81 90 1234 5678", &ka, a, ma));
	cr_assert_eq(memcmp(b.v[1], a, sizeof(a)), 0);
	cr_assert_neq(memcmp(b.v[0], a, sizeof(a)), 0);
	cr_assert_eq(bidx_signing_key(&k), k0);
	k.in_force = 1;
	cr_assert_eq(bidx_signing_key(&k), k7);
	/* slot 1 without a key after the switch */
	k.k[0] = NULL;
	k.id[0] = -1;
	cr_assert(contact_bidx(&k, "t1", "090-1234-5678", &kind, &b, m));
	cr_assert(!b.has[0] && b.has[1]);
	cr_assert_eq(b.key[0], -1);
	cr_assert_eq(memcmp(b.v[1], a, sizeof(a)), 0);
	cr_assert(!contact_bidx(&k, "t1", "not a contact", &kind, &b, m));
}
