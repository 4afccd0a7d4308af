/*
 * The address rule of outbound requests (netguard.c) and the judgement of
 * privacy-policy pages (ppcheck.c).
 */
#include <arpa/inet.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/netguard.h"
#include "../../src/ppcheck.h"

static bool
public(const char *addr)
{
	struct sockaddr_storage	 ss;

	memset(&ss, 0, sizeof(ss));
	if (strchr(addr, ':') != NULL) {
		ss.ss_family = AF_INET6;
		cr_assert_eq(inet_pton(AF_INET6, addr,
		    &((struct sockaddr_in6 *)&ss)->sin6_addr), 1, "%s", addr);
	} else {
		ss.ss_family = AF_INET;
		cr_assert_eq(inet_pton(AF_INET, addr,
		    &((struct sockaddr_in *)&ss)->sin_addr), 1, "%s", addr);
	}
	return net_addr_public((struct sockaddr *)&ss);
}

Test(netguard, special_addresses)
{
	static const char *const inside[] = {
		"0.0.0.0", "0.1.2.3", "10.0.0.1", "100.64.0.1",
		"100.127.255.255", "127.0.0.1", "127.255.255.255",
		"169.254.169.254", "172.16.0.1", "172.31.255.255", "192.0.0.9",
		"192.0.2.1", "192.88.99.1", "192.168.1.1", "198.18.0.1",
		"198.19.255.255", "198.51.100.1", "203.0.113.1", "224.0.0.1",
		"239.255.255.255", "240.0.0.1", "255.255.255.255",
		"::", "::1", "::ffff:127.0.0.1", "::ffff:10.1.2.3",
		"::127.0.0.1", "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe",
		"64:ff9b:1::8.8.8.8", "2002:7f00:1::", "2002:a00:1::1",
		"fc00::1", "fd00::1", "fe80::1", "fec0::1", "ff02::1",
		"2001:db8::1", "2001::1", "2001:1::1", "100::1",
	};
	static const char *const outside[] = {
		"1.1.1.1", "8.8.8.8", "93.184.216.34", "100.63.255.255",
		"100.128.0.1", "172.15.255.255", "172.32.0.1",
		"192.167.255.255", "192.169.0.1", "198.17.255.255",
		"198.20.0.1", "223.255.255.255", "2606:4700::1111",
		"2001:4860:4860::8888", "::ffff:8.8.8.8", "64:ff9b::808:808",
		"2002:808:808::1", "2400:cb00::1",
	};
	size_t	 i;

	for (i = 0; i < NELEM(inside); i++)
		cr_expect_not(public(inside[i]), "%s", inside[i]);
	for (i = 0; i < NELEM(outside); i++)
		cr_expect(public(outside[i]), "%s", outside[i]);
}

Test(ppcheck, judged_by_consent_mode)
{
	static const char good[] = "<p>フォームに入力された情報を送信前でも取得し、"
	    "SMS やメールでご案内します。不要な方は配信停止できます。</p>";
	static const char no_optout[] = "<p>入力内容は送信前に保存され、SMS と"
	    "メールでご案内をお送りします。</p>";
	json_object	*f;

	f = json_object_new_array();
	cr_assert_str_eq(pp_judge(good, strlen(good), "notice_optout",
	    "https://shop.example/privacy", f), "passed");
	cr_assert_eq(json_object_array_length(f), 0);
	json_object_put(f);

	f = json_object_new_array();
	cr_assert_str_eq(pp_judge(no_optout, strlen(no_optout), "notice_optout",
	    "https://shop.example/privacy", f), "failed");
	cr_assert_eq(json_object_array_length(f), 1);
	cr_assert_str_eq(json_object_get_string(json_object_object_get(
	    json_object_array_get_idx(f, 0), "code")), "optout_not_disclosed");
	json_object_put(f);

	/* explicit consent: how to stop is recommended, not required */
	f = json_object_new_array();
	cr_assert_str_eq(pp_judge(no_optout, strlen(no_optout), "explicit",
	    "http://shop.example/privacy", f), "passed");
	cr_assert_eq(json_object_array_length(f), 2);
	cr_assert_str_eq(json_object_get_string(json_object_object_get(
	    json_object_array_get_idx(f, 1), "code")), "not_https");
	json_object_put(f);

	/* nothing said: every item, in order */
	f = json_object_new_array();
	cr_assert_str_eq(pp_judge("", 0, "none", "https://x.example/", f),
	    "failed");
	cr_assert_eq(json_object_array_length(f), 4);
	json_object_put(f);
}
