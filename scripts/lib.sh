# Shared shell functions for scripts/demo, scripts/check, scripts/bench
# and the integration-test harness.  Sourced, never run.  Everything runs
# on loopback with private data folders: no systemd, no system services.

FB_PACKAGES="build-essential autoconf automake libtool pkg-config \
libfcgi-dev libmariadb-dev mariadb-server mariadb-client libjson-c-dev \
libsodium-dev libssl-dev libcurl4-openssl-dev libcriterion-dev lighttpd \
curl wrk mandoc libpcre2-dev ca-certificates procps"

fb_log() { printf '%s\n' "==> $*" >&2; }

# Install the Debian packages that are missing (as root, non-interactive).
fb_install_packages() {
	missing=""
	for p in $FB_PACKAGES; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		    grep -q 'install ok installed' || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	fb_log "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq </dev/null
	# Debian's mariadb-server would start the system service where
	# policy allows; tests never depend on it.
	apt-get install -y -qq --no-install-recommends $missing </dev/null >/dev/null
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
	d=$1 port=$2
	mkdir -p "$d"
	if [ ! -d "$d/mysql/mysql" ]; then
		mariadb-install-db --no-defaults --datadir="$d/mysql" \
		    --auth-root-authentication-method=normal --skip-test-db \
		    --user=root >"$d/mysql-install.log" 2>&1 || {
			cat "$d/mysql-install.log" >&2; return 1; }
	fi
	mariadbd --no-defaults --user=root --datadir="$d/mysql" \
	    --socket="$d/mysql.sock" --pid-file="$d/mysql.pid" --port="$port" \
	    --bind-address=127.0.0.1 --skip-name-resolve \
	    --innodb-buffer-pool-size=256M --innodb-flush-log-at-trx-commit=1 \
	    --max-connections=500 --log-error="$d/mysql.err" &
	i=0
	until mariadb-admin --no-defaults --socket="$d/mysql.sock" -uroot \
	    ping >/dev/null 2>&1; do
		i=$((i + 1))
		if [ $i -gt 300 ]; then
			cat "$d/mysql.err" >&2
			return 1
		fi
		sleep 0.1
	done
	mariadb --no-defaults --socket="$d/mysql.sock" -uroot <<'SQL'
CREATE DATABASE IF NOT EXISTS formback CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
CREATE USER IF NOT EXISTS 'formback'@'localhost' IDENTIFIED BY 'formback';
CREATE USER IF NOT EXISTS 'formback'@'127.0.0.1' IDENTIFIED BY 'formback';
GRANT ALL ON formback.* TO 'formback'@'localhost';
GRANT ALL ON formback.* TO 'formback'@'127.0.0.1';
SQL
}

fb_db_stop() {
	d=$1
	[ -f "$d/mysql.pid" ] || return 0
	pid=$(cat "$d/mysql.pid")
	kill -TERM "$pid" 2>/dev/null || return 0
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1))
	done
	rm -f "$d/mysql.pid"
}

# fb_write_conf DIR BASE_URL: DIR/formback.conf and a new master key.
fb_write_conf() {
	d=$1 base=$2
	mkdir -p "$d/publish" "$d/www"
	[ -f "$d/master.key" ] || {
		od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$d/master.key"
		echo >>"$d/master.key"
		chmod 600 "$d/master.key"
	}
	cat >"$d/formback.conf" <<CONF
# written by scripts/lib.sh for a private instance
db_socket = $d/mysql.sock
db_user = formback
db_password = formback
db_name = formback
base_url = $base
publish_dir = $d/publish
pii_key_file = $d/master.key
log_level = ${FB_LOG_LEVEL:-info}
CONF
}

# fb_http_start DIR PORT PROCS FCGI_BIN: lighttpd on 127.0.0.1:PORT with
# FCGI_BIN pre-forked PROCS times through fcgi-conf/formback-lighttpd.conf.
fb_http_start() {
	d=$1 port=$2 procs=$3 bin=$4
	top=$(pwd)
	cat >"$d/lighttpd.conf" <<CONF
server.document-root = "$d/www"
server.port = $port
server.bind = "127.0.0.1"
server.pid-file = "$d/lighttpd.pid"
server.errorlog = "$d/lighttpd.err"
server.max-connections = 1024
server.max-fds = 4096
var.formback_fcgi = "$bin"
var.formback_conf = "$d/formback.conf"
var.formback_procs = $procs
var.formback_socket = "$d/fcgi.sock"
include "$top/fcgi-conf/formback-lighttpd.conf"
CONF
	lighttpd -tt -f "$d/lighttpd.conf" >/dev/null || return 1
	lighttpd -D -f "$d/lighttpd.conf" 2>>"$d/lighttpd.err" &
	i=0
	until curl -s -o /dev/null "http://127.0.0.1:$port/api/v1/openapi.json"; do
		i=$((i + 1))
		if [ $i -gt 100 ]; then
			cat "$d/lighttpd.err" >&2
			return 1
		fi
		sleep 0.1
	done
}

fb_http_stop() {
	d=$1
	[ -f "$d/lighttpd.pid" ] || return 0
	pid=$(cat "$d/lighttpd.pid")
	kill -TERM "$pid" 2>/dev/null
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1; i=$((i + 1))
	done
	rm -f "$d/lighttpd.pid"
}
