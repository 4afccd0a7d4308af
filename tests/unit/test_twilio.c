/*
 * twilio.c and the drivers' E.164 (issue 44): Twilio's request
 * signature against the example of Twilio's "Webhooks security" page,
 * recomputed independently with Python's hmac (0/KCTR6DLpKmkAf8muzZqo1nDgQ=).
 */
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/sms.h"

static const char	url[] = "https://mycompany.com/myapp.php?foo=1&bar=2";

Test(twilio, signature_of_twilios_example)
{
	/* out of order on purpose: the signature sorts them */
	struct form_field f[] = {
		{ "To", "+18005551212" }, { "CallSid", "CA1234567890ABCDE" },
		{ "Digits", "1234" }, { "From", "+12349013030" },
		{ "Caller", "+12349013030" },
	};
	char	 sig[TWILIO_SIGNATURE_LEN + 1];

	cr_assert(twilio_signature("12345", url, f, 5, sig));
	cr_assert_str_eq(sig, "0/KCTR6DLpKmkAf8muzZqo1nDgQ=");
	cr_assert_str_eq(f[0].name, "CallSid");
	cr_assert_eq(strlen(sig), TWILIO_SIGNATURE_LEN);
	/* another token, a field changed, another URL: another signature */
	cr_assert(twilio_signature("12346", url, f, 5, sig));
	cr_assert_str_neq(sig, "0/KCTR6DLpKmkAf8muzZqo1nDgQ=");
	f[2].value = "1235";
	cr_assert(twilio_signature("12345", url, f, 5, sig));
	cr_assert_str_neq(sig, "0/KCTR6DLpKmkAf8muzZqo1nDgQ=");
	f[2].value = "1234";
	cr_assert(twilio_signature("12345", "https://mycompany.com/myapp.php",
	    f, 5, sig));
	cr_assert_str_neq(sig, "0/KCTR6DLpKmkAf8muzZqo1nDgQ=");
}

Test(twilio, signature_of_no_fields_is_the_urls)
{
	char	 sig[TWILIO_SIGNATURE_LEN + 1];

	/* python3: base64(hmac.new(b"12345", url, sha1)) */
	cr_assert(twilio_signature("12345", url, NULL, 0, sig));
	cr_assert_str_eq(sig, "zYQTYrRWXE7LtzbG4PfP7/bkkGo=");
}

Test(twilio, e164_of_domestic_numbers)
{
	char	 o[16];

	cr_assert(sms_e164("09012345678", o, sizeof(o)));
	cr_assert_str_eq(o, "+819012345678");
	cr_assert(sms_e164("+819012345678", o, sizeof(o)));
	cr_assert_str_eq(o, "+819012345678");
	cr_assert_not(sms_e164("090123456789012", o, 8));
}
