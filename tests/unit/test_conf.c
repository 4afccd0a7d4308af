/* conf.c: the configuration table (design 5; STYLE 12). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "../../src/formback.h"
#include "../../src/sms.h"

static char keyfile[] = "/tmp/fbkeyXXXXXX";
static char conffile[] = "/tmp/fbconfXXXXXX";

static void
remove_files(void)
{
	unlink(keyfile);
	unlink(conffile);
}

static void
write_files(const char *body)
{
	static int	 made;
	FILE		*f;
	int		 fd;

	/* a flag, not the template: mkstemp may well put an 'X' there */
	if (!made) {
		made = 1;
		fd = mkstemp(keyfile);
		cr_assert_geq(fd, 0);
		f = fdopen(fd, "w");
		fputs("1:00112233445566778899aabbccddeeff"
		    "00112233445566778899aabbccddeeff\n", f);
		fclose(f);
		fd = mkstemp(conffile);
		cr_assert_geq(fd, 0);
		close(fd);
		/*
		 * each test runs in a process of its own: clean up at its exit
		 */
		atexit(remove_files);
	}
	f = fopen(conffile, "w");
	cr_assert_not_null(f);
	fputs(body, f);
	fclose(f);
}

static enum fb_err
load(const char *body, char *err, size_t n)
{
	struct conf	 c;
	enum fb_err	 e;
	char		 full[2048];

	write_files("");
	snprintf(full, sizeof(full), body, keyfile);
	write_files(full);
	e = conf_load(&c, conffile, err, n);
	if (e == FB_OK)
		conf_free(&c);
	return e;
}

Test(conf, good_file_with_defaults)
{
	struct conf	 c;
	char		 err[256], full[1024];

	write_files("");
	snprintf(full, sizeof(full),
	    "# comment\n  db_user = fb \ndb_name=formback\n"
	    "base_url = https://fb.example.jp/\n"
	    "pii_key_file = %s\n\n", keyfile);
	write_files(full);
	cr_assert_eq(conf_load(&c, conffile, err, sizeof(err)), FB_OK, "%s",
	    err);
	cr_assert_str_eq(c.db_user, "fb");
	cr_assert_str_eq(c.db_host, "127.0.0.1");
	cr_assert_eq(c.db_port, 3306);
	cr_assert_str_eq(c.base_url, "https://fb.example.jp");
	cr_assert_eq(c.max_body_bytes, 1048576);
	cr_assert_eq(c.master_key_id, 1);
	cr_assert_eq(c.master_key[0], 0x00);
	cr_assert_eq(c.master_key[1], 0x11);
	conf_free(&c);
}

Test(conf, errors_name_key_and_line)
{
	char	 err[256];

	cr_assert_eq(load("db_user = a\ndb_name = b\n"
	    "base_url = https://x.example\npii_key_file = %s\n"
	    "colour = blue\n", err, sizeof(err)), FB_ECONF);
	cr_assert_not_null(strstr(err, "line 5"), "%s", err);
	cr_assert_not_null(strstr(err, "'colour'"), "%s", err);
	cr_assert_eq(load("db_user = a\ndb_name = b\n"
	    "base_url = https://x.example\npii_key_file = %s\n"
	    "db_port = 99999\n", err, sizeof(err)), FB_ECONF);
	cr_assert_not_null(strstr(err, "'db_port'"), "%s", err);
	cr_assert_eq(load("db_name = b\nbase_url = https://x.example\n"
	    "pii_key_file = %s\n", err, sizeof(err)), FB_ECONF);
	cr_assert_not_null(strstr(err, "'db_user'"), "%s", err);
	cr_assert_eq(load("db_user = a\ndb_name = b\n"
	    "base_url = https://x.example\npii_key_file = %s\n"
	    "log_level = loud\n", err, sizeof(err)), FB_ECONF);
	cr_assert_eq(load("db_user a\n%s", err, sizeof(err)), FB_ECONF);
	cr_assert_not_null(strstr(err, "line 1"), "%s", err);
	/* the master key file's problems name its line */
	cr_assert_eq(load("db_user = a\ndb_name = b\n"
	    "base_url = https://x.example\n"
	    "pii_key_file = "
	    "/nonexistent/master.key\n", err, sizeof(err)), FB_ECONF);
	cr_assert_not_null(strstr(err, "'pii_key_file' at line 4"), "%s", err);
	/* URLs: the scheme each needs and a host */
	cr_assert_eq(load("db_user = a\ndb_name = b\nbase_url = not a url\n"
	    "pii_key_file = %s\n", err, sizeof(err)), FB_ECONF);
	cr_assert_not_null(strstr(err, "'base_url' at line 3"), "%s", err);
	cr_assert_eq(load("db_user = a\ndb_name = b\n"
	    "base_url = https://x.example\n"
	    "pii_key_file = %s\nsmtp_url = http://mail.example\n", err,
	    sizeof(err)), FB_ECONF);
	cr_assert_not_null(strstr(err, "'smtp_url' at line 5"), "%s", err);
	cr_assert_eq(load("db_user = a\ndb_name = b\n"
	    "base_url = https://x.example\n"
	    "pii_key_file = %s\nsms_gateway_url = ftp:/x\n", err, sizeof(err)),
	    FB_ECONF);
	cr_assert_not_null(strstr(err, "'sms_gateway_url'"), "%s", err);
	cr_assert_eq(load("db_user = a\ndb_name = b\n"
	    "base_url = https://x.example\n"
	    "pii_key_file = %s\nsmtp_starttls = "
	    "maybe\n", err, sizeof(err)), FB_ECONF);
	cr_assert_not_null(strstr(err, "'smtp_starttls'"), "%s", err);
	cr_assert_eq(load("db_user = a\ndb_name = b\n"
	    "base_url = https://x.example\n"
	    "pii_key_file = %s\nsmtp_url = smtp://mail.example:587\n"
	    "smtp_starttls = yes\n", err, sizeof(err)), FB_OK, "%s", err);
	/* smtp_from is a From header as written: ASCII, with an address */
	cr_assert_eq(load("db_user = a\ndb_name = b\n"
	    "base_url = https://x.example\n"
	    "pii_key_file = %s\nsmtp_from = ショップ <a@shop.example>\n", err,
	    sizeof(err)), FB_ECONF);
	cr_assert_not_null(strstr(err, "'smtp_from' at line 5"), "%s", err);
	cr_assert_eq(load("db_user = a\ndb_name = b\n"
	    "base_url = https://x.example\n"
	    "pii_key_file = %s\nsmtp_from = "
	    "shop\n", err, sizeof(err)), FB_ECONF);
	cr_assert_eq(load("db_user = a\ndb_name = b\n"
	    "base_url = https://x.example\n"
	    "pii_key_file = %s\nsmtp_from = Example Shop "
	    "<noreply@shop.example>\n",
	    err, sizeof(err)), FB_OK, "%s", err);
}

/*
 * A rotated key file: the first key seals, earlier ones still open, the
 * lowest id keys the blind indexes and cursors (formback.conf(5)).
 */
Test(conf, key_rotation)
{
	struct conf	 c;
	char		 err[256], full[1024], kf[] = "/tmp/fbkey2XXXXXX";
	int		 fd;
	FILE		*f;

	fd = mkstemp(kf);
	cr_assert_geq(fd, 0);
	f = fdopen(fd, "w");
	fputs("# newest first\n"
	    "3:ffffffffffffffffffffffffffffffff"
	    "ffffffffffffffffffffffffffffffff\n"
	    "\n"
	    "1:00112233445566778899aabbccddeeff"
	    "00112233445566778899aabbccddeeff\n"
	    "2:22222222222222222222222222222222"
	    "22222222222222222222222222222222\n", f);
	fclose(f);
	write_files("");
	snprintf(full, sizeof(full), "db_user = fb\ndb_name = formback\n"
	    "base_url = https://fb.example.jp\npii_key_file = %s\n", kf);
	write_files(full);
	cr_assert_eq(conf_load(&c, conffile, err, sizeof(err)), FB_OK, "%s",
	    err);
	cr_assert_eq(c.master_key_id, 3);
	cr_assert_eq(c.master_key[0], 0xff);
	cr_assert_eq(c.nold_keys, 2);
	cr_assert_eq(conf_master_key(&c, 1)[1], 0x11);
	cr_assert_eq(conf_master_key(&c, 2)[0], 0x22);
	cr_assert_eq(conf_master_key(&c, 3), c.master_key);
	cr_assert_null(conf_master_key(&c, 4));
	cr_assert_eq(c.index_key, conf_master_key(&c, 1));
	conf_free(&c);
	/* an id twice is refused, naming the file's line */
	f = fopen(kf, "w");
	fputs("3:ffffffffffffffffffffffffffffffff"
	    "ffffffffffffffffffffffffffffffff\n"
	    "3:00112233445566778899aabbccddeeff"
	    "00112233445566778899aabbccddeeff\n", f);
	fclose(f);
	cr_assert_eq(conf_load(&c, conffile, err, sizeof(err)), FB_ECONF);
	cr_assert_not_null(strstr(err, "line 2"), "%s", err);
	unlink(kf);
}

/* db_password_file: the password from a file's first line, not both. */
Test(conf, db_password_file)
{
	struct conf	 c;
	char		 err[256], full[1024], pw[] = "/tmp/fbpwXXXXXX";
	FILE		*f;
	int		 fd;

	cr_assert_geq(fd = mkstemp(pw), 0);
	cr_assert_not_null(f = fdopen(fd, "w"));
	fputs("s3cret word\nsecond line\n", f);
	fclose(f);
	write_files("");
	snprintf(full, sizeof(full), "db_user = fb\ndb_name = formback\n"
	    "base_url = https://fb.example.jp\npii_key_file = %s\n"
	    "db_password_file = %s\n", keyfile, pw);
	write_files(full);
	cr_assert_eq(conf_load(&c, conffile, err, sizeof(err)), FB_OK, "%s",
	    err);
	cr_assert_str_eq(c.db_password, "s3cret word");
	conf_free(&c);
	strcat(full, "db_password = other\n");
	write_files(full);
	cr_assert_eq(conf_load(&c, conffile, err, sizeof(err)), FB_ECONF);
	cr_assert_not_null(strstr(err, "'db_password_file' at line 5"), "%s",
	    err);
	unlink(pw);
	snprintf(full, sizeof(full), "db_user = fb\ndb_name = formback\n"
	    "base_url = https://fb.example.jp\npii_key_file = %s\n"
	    "db_password_file = %s\n", keyfile, pw);
	write_files(full);
	cr_assert_eq(conf_load(&c, conffile, err, sizeof(err)), FB_ECONF);
	cr_assert_not_null(strstr(err, "cannot open"), "%s", err);
}

/*
 * sms_provider (issue 44): a name of SMS_DRIVERS; the keys of the driver
 * it names are required, the error naming the first one missing.
 */
Test(conf, sms_provider_names_its_missing_keys)
{
	struct conf	 c;
	char		 err[256], full[1024];

#define HEAD "db_user = a\ndb_name = b\nbase_url = https://x.example\n" \
	"pii_key_file = %s\n"
	cr_assert_eq(load(HEAD "sms_provider = carrier-pigeon\n", err,
	    sizeof(err)), FB_ECONF);
	cr_assert_not_null(strstr(err, "'sms_provider' at line 5: expected "
	    "one of gateway twilio"), "%s", err);
	cr_assert_eq(load(HEAD "sms_provider = twilio\n", err, sizeof(err)),
	    FB_ECONF);
	cr_assert_not_null(strstr(err, "missing key 'twilio_account_sid' "
	    "(sms_provider twilio)"), "%s", err);
	cr_assert_eq(load(HEAD "sms_provider = twilio\ntwilio_account_sid = "
	    "AC0123456789abcdef0123456789abcdef\ntwilio_auth_token =\n", err,
	    sizeof(err)), FB_ECONF);
	cr_assert_not_null(strstr(err, "'twilio_auth_token'"), "%s", err);
	/* sms_from's default is a name, not a sender Twilio takes as given */
	cr_assert_eq(load(HEAD "sms_provider = twilio\ntwilio_account_sid = "
	    "AC0123456789abcdef0123456789abcdef\ntwilio_auth_token = t\n", err,
	    sizeof(err)), FB_ECONF);
	cr_assert_not_null(strstr(err, "missing key "
	    "'twilio_messaging_service_sid' or 'sms_from'"), "%s", err);
	/* a SID goes into the API's URL: letters and digits only */
	cr_assert_eq(load(HEAD "twilio_account_sid = AC/../x\n", err,
	    sizeof(err)), FB_ECONF);
	cr_assert_not_null(strstr(err, "'twilio_account_sid' at line 5"), "%s",
	    err);
	/* the gateway named: its URL too; not named, as before the key */
	cr_assert_eq(load(HEAD "sms_provider = gateway\n", err, sizeof(err)),
	    FB_ECONF);
	cr_assert_not_null(strstr(err, "'sms_gateway_url'"), "%s", err);
	cr_assert_eq(load(HEAD, err, sizeof(err)), FB_OK, "%s", err);
	write_files("");
	snprintf(full, sizeof(full), HEAD "sms_provider = twilio\n"
	    "twilio_account_sid = AC0123456789abcdef0123456789abcdef\n"
	    "twilio_auth_token = secret\ntwilio_messaging_service_sid = "
	    "MG0123456789abcdef0123456789abcdef\n"
	    "twilio_api_base = http://127.0.0.1:9/\n", keyfile);
	write_files(full);
	cr_assert_eq(conf_load(&c, conffile, err, sizeof(err)), FB_OK, "%s",
	    err);
	cr_assert_eq(c.sms_provider, SMS_TWILIO);
	cr_assert_str_eq(c.twilio_api_base, "http://127.0.0.1:9");
	cr_assert_str_eq(c.twilio_messaging_service_sid,
	    "MG0123456789abcdef0123456789abcdef");
	conf_free(&c);
	write_files("");
	snprintf(full, sizeof(full), HEAD, keyfile);
	write_files(full);
	cr_assert_eq(conf_load(&c, conffile, err, sizeof(err)), FB_OK, "%s",
	    err);
	cr_assert_eq(c.sms_provider, SMS_GATEWAY);
	cr_assert_str_eq(c.twilio_api_base, "https://api.twilio.com");
	cr_assert_null(c.twilio_auth_token);
	conf_free(&c);
#undef HEAD
}
