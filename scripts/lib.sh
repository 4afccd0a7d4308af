# Shared shell functions for scripts/demo, scripts/check, scripts/bench
# and the integration-test harness.  Sourced, never run.  Everything runs
# on loopback with private data folders: no systemd, no system services.

FB_PACKAGES="build-essential autoconf automake libtool pkg-config \
libfcgi-dev libmariadb-dev mariadb-server mariadb-client libjson-c-dev \
libsodium-dev libssl-dev libcurl4-openssl-dev libcriterion-dev lighttpd \
lighttpd-modules-lua lighttpd-mod-openssl lighttpd-mod-deflate apache2 libapache2-mod-fcgid \
curl openssl wrk mandoc libpcre2-dev libidn2-dev ca-certificates procps chromium fonts-ipafont-gothic clang libclang-rt-14-dev \
python3 python3-aiosmtpd galera-4 rsync haproxy debhelper lintian fakeroot"

fb_log() { printf '%s\n' "==> $*" >&2; }

# Install the Debian packages that are missing (as root, non-interactive).
fb_install_packages() {
	_missing=""
	for _p in $FB_PACKAGES; do
		dpkg-query -W -f='${Status}' "$_p" 2>/dev/null |
		    grep -q 'install ok installed' || _missing="$_missing $_p"
	done
	[ -z "$_missing" ] && return 0
	fb_log "installing:$_missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq </dev/null
	# Debian's mariadb-server, lighttpd and apache2 would start their
	# system services (port 80, the system database); nothing here uses
	# them, so policy-rc.d(8) says no for the time of the install
	_policy=""
	[ -e /usr/sbin/policy-rc.d ] || {
		_policy=/usr/sbin/policy-rc.d
		printf '#!/bin/sh\nexit 101\n' >"$_policy" && chmod 755 "$_policy"
	}
	_rc=0
	apt-get install -y -qq --no-install-recommends $_missing </dev/null >/dev/null || _rc=$?
	[ -z "$_policy" ] || rm -f "$_policy"
	return $_rc
}

# Configure (once) and build in the source tree.
fb_build() {
	[ -x configure ] || autoreconf -fi >/dev/null
	[ -f Makefile ] || ./configure -q "$@"
	make -j2 >/dev/null
}

# fb_db_start DIR PORT: a private MariaDB in DIR on 127.0.0.1:PORT and
# DIR/mysql.sock, with database "formback" and user formback/formback.
fb_db_start() {
	_d=$1 _port=$2
	mkdir -p "$_d"
	if [ ! -d "$_d/mysql/mysql" ]; then
		mariadb-install-db --no-defaults --datadir="$_d/mysql" \
		    --auth-root-authentication-method=normal --skip-test-db \
		    --user=root >"$_d/mysql-install.log" 2>&1 || {
			cat "$_d/mysql-install.log" >&2; return 1; }
	fi
	mariadbd --no-defaults --user=root --datadir="$_d/mysql" \
	    --socket="$_d/mysql.sock" --pid-file="$_d/mysql.pid" --port="$_port" \
	    --bind-address=127.0.0.1 --skip-name-resolve \
	    --innodb-buffer-pool-size=256M --innodb-flush-log-at-trx-commit=1 \
	    --max-connections=500 ${FB_DB_FLAGS:-} --log-error="$_d/mysql.err" \
	    </dev/null >>"$_d/mysql.out" 2>&1 &
	_i=0
	until mariadb-admin --no-defaults --socket="$_d/mysql.sock" -uroot \
	    ping >/dev/null 2>&1; do
		_i=$((_i + 1))
		if [ $_i -gt 300 ]; then
			cat "$_d/mysql.err" >&2
			return 1
		fi
		sleep 0.1
	done
	mariadb --no-defaults --socket="$_d/mysql.sock" -uroot <<'SQL'
CREATE DATABASE IF NOT EXISTS formback CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
CREATE USER IF NOT EXISTS 'formback'@'localhost' IDENTIFIED BY 'formback';
CREATE USER IF NOT EXISTS 'formback'@'127.0.0.1' IDENTIFIED BY 'formback';
GRANT ALL ON formback.* TO 'formback'@'localhost';
GRANT ALL ON formback.* TO 'formback'@'127.0.0.1';
SQL
}

fb_db_stop() {
	_d=$1
	[ -f "$_d/mysql.pid" ] || return 0
	_pid=$(cat "$_d/mysql.pid")
	kill -TERM "$_pid" 2>/dev/null || return 0
	_i=0
	while kill -0 "$_pid" 2>/dev/null && [ $_i -lt 100 ]; do
		sleep 0.1; _i=$((_i + 1))
	done
	rm -f "$_d/mysql.pid"
}

# fb_write_conf DIR BASE_URL: DIR/formback.conf and a new master key.
fb_write_conf() {
	_d=$1 _base=$2
	mkdir -p "$_d/www/tag"
	[ -f "$_d/master.key" ] || {
		od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$_d/master.key"
		echo >>"$_d/master.key"
		chmod 600 "$_d/master.key"
	}
	cat >"$_d/formback.conf" <<CONF
# written by scripts/lib.sh for a private instance
db_socket = $_d/mysql.sock
db_user = formback
db_password = formback
db_name = formback
db_connect_timeout = ${FB_DB_CONNECT_TIMEOUT:-5}
db_read_timeout = ${FB_DB_READ_TIMEOUT:-10}
base_url = $_base
publish_dir = $_d/www/tag
pii_key_file = $_d/master.key
log_level = ${FB_LOG_LEVEL:-info}
metrics = yes
smtp_url = ${FB_SMTP_URL:-smtp://127.0.0.1:25}
smtp_from = Formback Demo <noreply@formback.example>
sms_gateway_url = ${FB_SMS_URL:-http://127.0.0.1:9/sms}
sms_gateway_token = ${FB_SMS_TOKEN:-stand-in-token}
sms_from = FormbackDemo
hook_token = ${FB_HOOK_TOKEN:-stand-in-hook-token}
tag_events_per_hour = ${FB_TAG_EVENTS_PER_HOUR:-3600}
tag_captures_per_hour = ${FB_TAG_CAPTURES_PER_HOUR:-30}
tag_network_captures_per_hour = ${FB_TAG_NETWORK_CAPTURES_PER_HOUR:-90}
tag_visitor_captures = ${FB_TAG_VISITOR_CAPTURES:-10}
site_new_leads_floor = ${FB_SITE_NEW_LEADS_FLOOR:-100}
CONF
	# the test deployments' webhook keys (formback.conf(5)), when asked for
	[ -z "${FB_WEBHOOK_CA_FILE:-}" ] ||
	    echo "webhook_ca_file = $FB_WEBHOOK_CA_FILE" >>"$_d/formback.conf"
	[ -z "${FB_WEBHOOK_ALLOW_HOSTS:-}" ] ||
	    echo "webhook_allow_hosts = $FB_WEBHOOK_ALLOW_HOSTS" >>"$_d/formback.conf"
	[ -z "${FB_WEBHOOK_RESOLVE:-}" ] ||
	    echo "webhook_resolve = $FB_WEBHOOK_RESOLVE" >>"$_d/formback.conf"
	# Twilio's status callbacks verified (formback.conf(5)), when asked
	# for: the provider stays the gateway unless sms_provider says so
	[ -z "${FB_TWILIO_TOKEN:-}" ] ||
	    echo "twilio_auth_token = $FB_TWILIO_TOKEN" >>"$_d/formback.conf"
}

# fb_http_start DIR PORT PROCS FCGI_BIN: the web server on 127.0.0.1:PORT
# with FCGI_BIN pre-forked PROCS times: lighttpd through
# fcgi-conf/formback-lighttpd.conf, or with FB_HTTPD=apache Apache httpd
# through fcgi-conf/formback-apache.conf (mod_fcgid, or mod_proxy_fcgi
# with FB_APACHE_FCGI=proxy).  Its error log is
# DIR/httpd.err, its pid file DIR/httpd.pid.
fb_http_start() {
	if [ "${FB_HTTPD:-lighttpd}" = apache ]; then
		fb_apache_start "$@"
	else
		fb_lighttpd_start "$@"
	fi || return 1
	_i=0
	until curl -s -o /dev/null "http://127.0.0.1:$2/api/v1/openapi.json"; do
		_i=$((_i + 1))
		if [ $_i -gt 100 ]; then
			cat "$1/httpd.err" >&2
			return 1
		fi
		sleep 0.1
	done
}

# Where a stack takes Formback's files from: the source tree (the
# current directory), or, with FB_INSTALLED set to a prefix (/usr for the
# Debian package, scripts/check), what is installed there: the binaries
# of FB_INSTALLED/sbin (fb_stack_start's BUILDDIR) and share/formback's
# fragments, admin UI, tag.js and migrations.
fb_installed_share() { echo "$FB_INSTALLED/share/formback"; }

# fb_migrations: the folder of the migrations.
fb_migrations() {
	if [ -n "${FB_INSTALLED:-}" ]; then
		echo "$(fb_installed_share)/migrations"
	else
		echo "$(pwd)/db/migrations"
	fi
}

# fb_fcgiconf: the folder of the web server fragments.
fb_fcgiconf() {
	if [ -n "${FB_INSTALLED:-}" ]; then
		echo "$(fb_installed_share)/fcgi-conf"
	else
		echo "$(pwd)/fcgi-conf"
	fi
}

# fb_www_copy DEST: tag.js into DEST (the document root) and the admin UI
# into DEST/admin as installed in share/formback/www: the pages and
# modules without the node tests and their packages (admin/test/).
fb_www_copy() {
	rm -rf "$1/admin" && mkdir -p "$1/admin" || return 1
	if [ -n "${FB_INSTALLED:-}" ]; then
		cp "$(fb_installed_share)/www/tag.js" "$1/tag.js" &&
		    cp -R "$(fb_installed_share)/www/admin/." "$1/admin/"
	else
		cp tag/tag.js "$1/tag.js" &&
		    tar -C admin --exclude=./test -cf - . | tar -C "$1/admin" -xf -
	fi
}

# fb_reference_copy DEST: the API reference page that `make reference`
# built, named by FB_REFERENCE, into DEST (share/formback/www), where the
# web server fragments serve it as /docs/api; nothing when unset.
fb_reference_copy() {
	if [ -n "${FB_REFERENCE:-}" ]; then
		cp "$FB_REFERENCE" "$1/reference.html"
	elif [ -n "${FB_INSTALLED:-}" ] &&
	    [ -f "$(fb_installed_share)/www/reference.html" ]; then
		cp "$(fb_installed_share)/www/reference.html" "$1/reference.html"
	fi
}

# Apache httpd (Debian's apache2, mpm_event) with nothing but this
# instance: its own ServerRoot-free configuration in DIR, and DIR/share
# as share/formback is installed (fcgi-conf, www/admin).  Run as root,
# httpd serves as www-data: DIR must be within its reach (as /tmp is),
# and what it runs and serves is copied there, out of the build's.
# mod_fcgid starts the workers, or with FB_APACHE_FCGI=proxy they are
# formback.fcgi's own (-s DIR/fcgid/formback.sock -n PROCS, its pid in
# DIR/fcgi.pid), reached through mod_proxy_fcgi.
fb_apache_start() {
	_d=$1 _port=$2 _procs=$3 _bin=$4
	_fc=$(fb_fcgiconf) _mods=/usr/lib/apache2/modules
	rm -rf "$_d/share"
	mkdir -p "$_d/share/www" "$_d/fcgid" "$_d/apache-run"
	_user="" _as=""
	if [ "$(id -u)" = 0 ]; then
		_user="User www-data
Group www-data"
		chmod 755 "$_d"
		runuser -u www-data -- test -x "$_d" || {
			fb_log "Apache serves as www-data, which cannot reach $_d"
			return 1
		}
		mkdir -p "$_d/sbin"
		cp "$_bin" "$_d/sbin/formback.fcgi"
		_bin=$_d/sbin/formback.fcgi
		cp -R "$_fc" "$_d/share/fcgi-conf"
		chown www-data "$_d/fcgid" "$_d/www/tag"
		_as="setpriv --reuid=www-data --regid=www-data --init-groups"
		chgrp www-data "$_d/master.key" "$_d/formback.conf"
		chmod 640 "$_d/master.key" "$_d/formback.conf"
	else
		ln -s "$_fc" "$_d/share/fcgi-conf"
	fi
	fb_www_copy "$_d/share/www" && rm -f "$_d/share/www/tag.js"
	fb_reference_copy "$_d/share/www"
	if [ "${FB_APACHE_FCGI:-fcgid}" = proxy ]; then
		_fcgi="LoadModule proxy_module $_mods/mod_proxy.so
LoadModule proxy_fcgi_module $_mods/mod_proxy_fcgi.so
Define FORMBACK_SOCKET $_d/fcgid/formback.sock"
		rm -f "$_d/fcgid/formback.sock"
		$_as env FORMBACK_CONF="$_d/formback.conf" "$_bin" \
		    -s "$_d/fcgid/formback.sock" -n "$_procs" </dev/null >>"$_d/httpd.err" 2>&1 &
		echo $! >"$_d/fcgi.pid"
		_i=0
		until [ -S "$_d/fcgid/formback.sock" ]; do
			_i=$((_i + 1))
			[ $_i -le 100 ] || { cat "$_d/httpd.err" >&2; return 1; }
			sleep 0.1
		done
	else
		_fcgi="LoadModule fcgid_module $_mods/mod_fcgid.so
FcgidIPCDir \"$_d/fcgid\"
FcgidProcessTableFile \"$_d/fcgid/shm\"
# a burst starts every worker (mod_fcgid: 10 at once, then one a second)
FcgidSpawnScoreUpLimit 256"
	fi
	cat >"$_d/apache.conf" <<CONF
DefaultRuntimeDir "$_d/apache-run"
PidFile "$_d/httpd.pid"
Listen 127.0.0.1:$_port
ServerName 127.0.0.1
$_user
LoadModule mpm_event_module $_mods/mod_mpm_event.so
LoadModule authz_core_module $_mods/mod_authz_core.so
LoadModule authz_host_module $_mods/mod_authz_host.so
LoadModule mime_module $_mods/mod_mime.so
LoadModule alias_module $_mods/mod_alias.so
LoadModule dir_module $_mods/mod_dir.so
LoadModule headers_module $_mods/mod_headers.so
LoadModule filter_module $_mods/mod_filter.so
LoadModule deflate_module $_mods/mod_deflate.so
LoadModule rewrite_module $_mods/mod_rewrite.so
$_fcgi
ErrorLog "$_d/httpd.err"
LogLevel warn
MaxRequestWorkers 150
TypesConfig /etc/mime.types
AddType "text/html; charset=utf-8" .html
AddType "text/javascript; charset=utf-8" .js
AddType "application/json; charset=utf-8" .json
AddType "text/css; charset=utf-8" .css
DocumentRoot "$_d/www"
<Directory />
  AllowOverride None
  Require all denied
</Directory>
<Directory "$_d/www">
  Require all granted
</Directory>
Define FORMBACK_FCGI $_bin
Define FORMBACK_CONF $_d/formback.conf
Define FORMBACK_SHARE $_d/share
Define FORMBACK_PROCS $_procs
# in a virtual host, as the README tells an operator to include it
<VirtualHost 127.0.0.1:$_port>
Include "$_fc/formback-apache.conf"
CONF
	# mod_fcgid hands its programs only the environment it is told:
	# scripts/bench's bare responder takes its tenant from there
	[ "${FB_APACHE_FCGI:-fcgid}" = proxy ] || [ -z "${FB_BARE_TENANT:-}" ] ||
	    echo "FcgidInitialEnv FB_BARE_TENANT $FB_BARE_TENANT" >>"$_d/apache.conf"
	[ "${FB_APACHE_FCGI:-fcgid}" = proxy ] || [ -z "${FB_BARE_LIMIT:-}" ] ||
	    echo "FcgidInitialEnv FB_BARE_LIMIT $FB_BARE_LIMIT" >>"$_d/apache.conf"
	echo "</VirtualHost>" >>"$_d/apache.conf"
	apache2 -t -f "$_d/apache.conf" >/dev/null 2>"$_d/httpd.err" || {
		cat "$_d/httpd.err" >&2; return 1; }
	# daemons never keep the caller's output open (scripts/demo | tee works)
	apache2 -f "$_d/apache.conf" -k start </dev/null >>"$_d/httpd.err" 2>&1
}

fb_lighttpd_start() {
	_d=$1 _port=$2 _procs=$3 _bin=$4
	_fc=$(fb_fcgiconf)
	# DIR/share as share/formback is installed: the fragments, and the
	# API reference when there is one
	rm -rf "$_d/share" && mkdir -p "$_d/share/www" &&
	    ln -s "$_fc" "$_d/share/fcgi-conf" || return 1
	fb_reference_copy "$_d/share/www"
	cat >"$_d/lighttpd.conf" <<CONF
server.document-root = "$_d/www"
server.port = $_port
server.bind = "127.0.0.1"
server.pid-file = "$_d/httpd.pid"
server.errorlog = "$_d/httpd.err"
server.max-connections = 1024
server.max-fds = 4096
# errors lighttpd answers itself (411 for a POST without Content-Length,
# 503 while no worker is up, ...) in the contract's JSON envelope
server.errorfile-prefix = "$_fc/errors/status-"
mimetype.assign = ( $(for _f in "$_fc"/errors/status-*.html; do
	printf '"%s" => "application/json; charset=utf-8", ' "${_f##*/}"; done)
                    ".html" => "text/html; charset=utf-8",
                    ".js" => "text/javascript; charset=utf-8",
                    ".json" => "application/json; charset=utf-8",
                    ".css" => "text/css; charset=utf-8" )
var.formback_fcgi = "$_bin"
var.formback_conf = "$_d/formback.conf"
var.formback_procs = $_procs
var.formback_socket = "$_d/fcgi.sock"
var.formback_share = "$_d/share"
include "$_fc/formback-lighttpd.conf"
CONF
	# FB_TLS_PEM (a certificate and its key): HTTPS on the port instead
	[ -z "${FB_TLS_PEM:-}" ] || cat >>"$_d/lighttpd.conf" <<CONF
server.modules += ( "mod_openssl" )
ssl.engine = "enable"
ssl.pemfile = "$FB_TLS_PEM"
CONF
	lighttpd -tt -f "$_d/lighttpd.conf" >/dev/null || return 1
	# daemons never keep the caller's output open (scripts/demo | tee works)
	lighttpd -D -f "$_d/lighttpd.conf" </dev/null >>"$_d/httpd.err" 2>&1 &
}

fb_http_stop() {
	_d=$1
	if [ -f "$_d/fcgi.pid" ]; then
		# formback.fcgi's own workers (FB_APACHE_FCGI=proxy): gone
		# once its supervisor is (a zombie of this shell's counts)
		_pid=$(cat "$_d/fcgi.pid")
		kill -TERM "$_pid" 2>/dev/null
		_i=0
		while [ $_i -lt 100 ] && [ "$(awk '{ print $3 }' \
		    "/proc/$_pid/stat" 2>/dev/null || echo Z)" != Z ]; do
			sleep 0.1; _i=$((_i + 1))
		done
		rm -f "$_d/fcgi.pid"
	fi
	[ -f "$_d/httpd.pid" ] || return 0
	_pid=$(cat "$_d/httpd.pid")
	# a stale file (a reboot, a killed run) names nothing to stop
	kill -TERM "$_pid" 2>/dev/null || { rm -f "$_d/httpd.pid"; return 0; }
	_i=0
	while kill -0 "$_pid" 2>/dev/null && [ $_i -lt 50 ]; do
		sleep 0.1; _i=$((_i + 1))
	done
	rm -f "$_d/httpd.pid"
}

# fb_stack_start DIR DBPORT HTTPPORT PROCS BUILDDIR: MariaDB, formback.conf,
# migrations, tag.js in the document root, lighttpd with formback.fcgi.
fb_stack_start() {
	_sd=$1 _sdb=$2 _shttp=$3 _sprocs=$4 _sbld=$5
	fb_db_start "$_sd" "$_sdb" 2>>"$_sd/mysql.start.log" || return 1
	fb_write_conf "$_sd" "http://127.0.0.1:$_shttp"
	FORMBACK_CONF="$_sd/formback.conf" "$_sbld/formbackctl" migrate \
	    --dir "$(fb_migrations)" >/dev/null || return 1
	fb_www_copy "$_sd/www" || return 1
	fb_http_start "$_sd" "$_shttp" "$_sprocs" "$_sbld/formback.fcgi"
}

# fb_tls_start DIR PORT BUILDDIR: a second formback.fcgi behind lighttpd
# with HTTPS on 127.0.0.1:PORT (base_url https://127.0.0.1:PORT) in
# DIR/tls, on DIR's database and key, with a certificate for 127.0.0.1
# (DIR/tls/ca.pem) made here: what a deployment under https answers
# (issue 43: the cookies' Secure and __Host-, HSTS).
fb_tls_start() {
	_t=$1/tls
	mkdir -p "$_t/www/tag"
	ln -sf "$1/mysql.sock" "$_t/mysql.sock"
	cp "$1/master.key" "$_t/master.key"
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
	    -addext subjectAltName=IP:127.0.0.1 -keyout "$_t/key.pem" \
	    -out "$_t/ca.pem" >/dev/null 2>&1 || return 1
	cat "$_t/ca.pem" "$_t/key.pem" >"$_t/server.pem"
	fb_write_conf "$_t" "https://127.0.0.1:$2"
	fb_www_copy "$_t/www" || return 1
	FB_TLS_PEM="$_t/server.pem" fb_lighttpd_start "$_t" "$2" 1 \
	    "$3/formback.fcgi" || return 1
	_i=0
	until curl -s --cacert "$_t/ca.pem" -o /dev/null \
	    "https://127.0.0.1:$2/api/v1/openapi.json"; do
		_i=$((_i + 1))
		[ $_i -gt 100 ] && { cat "$_t/httpd.err" >&2; return 1; }
		sleep 0.1
	done
}

fb_stack_stop() {
	fb_http_stop "$1" || true
	fb_db_stop "$1" || true
}

# Node.js for the tag's tests and the browser test (Debian's, when the
# machine has none).
fb_need_node() {
	command -v node >/dev/null && command -v npm >/dev/null && return 0
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -qq --no-install-recommends nodejs npm </dev/null >/dev/null
}

# fb_standins_start DIR SMTPPORT SMSPORT: the SMTP sink (DIR/mail/) and
# the SMS gateway stand-in (DIR/sms.jsonl); their PIDs in DIR/standins.pid.
fb_standins_start() {
	_td=$1
	/usr/bin/python3 tests/standins/smtp_sink.py "$2" "$_td/mail" \
	    </dev/null >>"$_td/standins.err" 2>&1 &
	echo $! >"$_td/standins.pid"
	/usr/bin/python3 tests/standins/sms_gateway.py "$3" "$_td/sms.jsonl" \
	    "${FB_SMS_TOKEN:-stand-in-token}" </dev/null >>"$_td/standins.err" 2>&1 &
	echo $! >>"$_td/standins.pid"
	_i=0
	until curl -s -o /dev/null -X POST "http://127.0.0.1:$3/" 2>/dev/null; do
		_i=$((_i + 1)); [ $_i -gt 300 ] && return 1; sleep 0.1
	done
}

# fb_twilio_start DIR PORT: the Twilio stand-in (tests/standins/twilio.py)
# on http://127.0.0.1:PORT for account FB_TWILIO_SID and auth token
# FB_TWILIO_TOKEN, its requests in DIR/twilio.jsonl; its PID added to
# DIR/standins.pid.  Only the tests that send through Twilio need it.
fb_twilio_start() {
	_td=$1
	/usr/bin/python3 tests/standins/twilio.py "$2" "$_td/twilio.jsonl" \
	    "$FB_TWILIO_SID" "$FB_TWILIO_TOKEN" </dev/null \
	    >>"$_td/standins.err" 2>&1 &
	echo $! >>"$_td/standins.pid"
	_i=0
	until curl -s -o /dev/null "http://127.0.0.1:$2/" -X POST 2>/dev/null; do
		_i=$((_i + 1)); [ $_i -gt 50 ] && return 1; sleep 0.1
	done
	# the probe is not a send
	rm -f "$_td/twilio.jsonl"
}

# fb_webhook_receiver_start DIR PORT NAMES: the webhook receiver stand-in
# on https://127.0.0.1:PORT with a self-signed certificate (DIR/hook.crt)
# for the comma-separated host NAMES; requests in DIR/hooks.jsonl.
fb_webhook_receiver_start() {
	_td=$1 _san=$(echo "$3" | sed 's/\([^,]*\)/DNS:\1/g')
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=${3%%,*}" \
	    -addext "subjectAltName=$_san" -keyout "$_td/hook.key" \
	    -out "$_td/hook.crt" >/dev/null 2>&1 || return 1
	/usr/bin/python3 tests/standins/webhook_receiver.py "$2" "$_td/hook.crt" \
	    "$_td/hook.key" "$_td/hooks.jsonl" </dev/null >>"$_td/standins.err" 2>&1 &
	echo $! >>"$_td/standins.pid"
	_i=0
	until curl -sk -o /dev/null -X POST "https://127.0.0.1:$2/probe" 2>/dev/null; do
		_i=$((_i + 1)); [ $_i -gt 300 ] && return 1; sleep 0.1
	done
	# the probe is not a delivery
	rm -f "$_td/hooks.jsonl" "$_td/hooks.jsonl.conns"
}

fb_standins_stop() {
	[ -f "$1/standins.pid" ] || return 0
	for _p in $(cat "$1/standins.pid"); do kill -TERM "$_p" 2>/dev/null || :; done
	rm -f "$1/standins.pid"
}

# fb_package_confs_check: the Debian package's conf-available files, as
# installed, pass lighttpd's and Apache's own checks (lighttpd -tt loads
# the modules; apache2 -t with the modules `a2enmod` would enable).
fb_package_confs_check() {
	_pc=$(mktemp -d /tmp/fbpkgconf.XXXXXX) _mods=/usr/lib/apache2/modules
	printf 'server.document-root = "%s"\nserver.port = 1\n%s\n' "$_pc" \
	    'include "/etc/lighttpd/conf-available/50-formback.conf"' >"$_pc/l.conf"
	{
		echo "DefaultRuntimeDir $_pc"
		echo "PidFile $_pc/httpd.pid"
		echo "ServerName localhost"
		echo "Listen 127.0.0.1:1"
		for _m in mpm_event authz_core authz_host mime alias dir headers \
		    filter deflate rewrite fcgid; do
			echo "LoadModule ${_m}_module $_mods/mod_$_m.so"
		done
		echo "ErrorLog $_pc/error.log"
		echo "Include /etc/apache2/conf-available/formback.conf"
	} >"$_pc/a.conf"
	lighttpd -tt -f "$_pc/l.conf" && apache2 -t -f "$_pc/a.conf"
	_rc=$?
	rm -rf "$_pc"
	return $_rc
}
