#!/bin/bash
# Tests/Systemd/run.sh [PACKAGE.deb]
#
# Installs the filedrop Debian package into a Debian 12 container booted with a real
# systemd (systemd-nspawn -b) and checks that the daemon is a well-behaved service:
# enabled and started by the package as its system user filedrop (an upgrade from the
# DynamicUser= layout moves and hands over the files), READY=1 and STATUS=, its DNS-SD
# announcement through avahi-daemon over Debian 12's stock dbus-daemon (renamed by reload,
# "#2" for a second instance of the name, on a new interface, withdrawn on stop, and one
# log line and a normal start without avahi-daemon), HTTPS with the package's tls = auto
# (the CA in the second state directory, its fingerprint in STATUS, /ca.crt, curl
# verifying with that CA; the plain port redirects and refuses uploads), uploads over
# HTTPS land in the state directory, reload by SIGHUP, journal fields,
# watchdog pings, a draining stop that systemd records as success, tls = files from
# LoadCredential= (and what reload and restart do with a renewed pair), rotating the CA,
# socket activation on ports 80 and 443, the sandbox score, and remove/purge.
#
# Every HTTPS client verifies the certificate against one CA (curl --cacert, openssl
# s_client -verify_return_error); the host's openssl runs in the container's network
# namespace (nsenter --net), so the container needs no openssl of its own.
#
# Needs root, debootstrap, systemd-nspawn and openssl. The root file system is made once
# with debootstrap from the mirror apt already uses here and kept as a tarball under
# .build/systemd-root; later runs unpack it (seconds). Prints "N passed, N failed".
#
# Environment: FILEDROP_DEB (the package; default: newest debian-build/*.deb),
# SYSTEMD_TEST_KEEP=1 (leave the container's tree for inspection).

set -euo pipefail

REPO_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CACHE_DIR="$REPO_ROOT/.build/systemd-root"
MACHINE="$CACHE_DIR/machine"
BOOT_LOG="$CACHE_DIR/boot.log"
SUITE=bookworm
CONTAINER_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

PASSED=0
FAILED=0
NSPAWN_PID=""
CONTAINER_PID=""
STARTED_AT=$SECONDS

log() { printf '[systemd-test %3ds] %s\n' "$((SECONDS - STARTED_AT))" "$*"; }

skip() {
    printf '\n'
    printf '############################################################\n'
    printf '#  SKIPPED: the real-systemd test did not run.\n'
    printf '#  Reason: %s\n' "$*"
    printf '############################################################\n\n'
    exit 0
}

fail_setup() {
    log "SETUP FAILED: $*"
    [ -f "$BOOT_LOG" ] && { log "last lines of the container console:"; tail -n 30 "$BOOT_LOG"; }
    exit 1
}

# ---------------------------------------------------------------------------
# Preconditions

[ "$(id -u)" -eq 0 ] || skip "not root (debootstrap and systemd-nspawn need root)"
for tool in debootstrap systemd-nspawn nsenter openssl; do
    command -v "$tool" >/dev/null || skip "$tool is not installed (apt-get install debootstrap systemd-container util-linux openssl)"
done

DEB=${1:-${FILEDROP_DEB:-}}
if [ -z "$DEB" ]; then
    DEB=$(ls -t "$REPO_ROOT"/debian-build/filedrop_*.deb 2>/dev/null | head -n 1 || true)
fi
[ -n "$DEB" ] && [ -f "$DEB" ] || fail_setup "no package: run packaging/build-deb.sh (make deb) first, or pass the .deb"
# The test's tools plus the package's own Depends (read from the .deb, so a new library
# dependency is never forgotten here). The container has no network, so dpkg -i must find
# them installed.
DEB_DEPENDS=$(dpkg-deb -f "$DEB" Depends | tr ',' '\n' | sed 's/|.*//; s/(.*)//; s/[[:space:]]//g' | grep -v '^$' | sort -u | paste -sd, -)
# avahi-daemon and avahi-utils (avahi-browse): the mDNS checks (section 2b). The system bus
# is Debian 12's own dbus-daemon, which drops DynamicUser= clients (systemd issue 22737):
# the package's static user is what lets the announcement through.
INCLUDE="systemd,systemd-sysv,dbus,curl,avahi-daemon,avahi-utils,$DEB_DEPENDS"
# A changed package list makes a new tarball rather than reusing a stale one.
ROOTFS_TAR="$CACHE_DIR/$SUITE-minbase-$(echo "$INCLUDE" | md5sum | cut -c1-8).tar"

# ---------------------------------------------------------------------------
# The root file system, cached

# The first "deb" URI that apt on this machine uses for $SUITE, from one-line
# sources.list files and deb822 .sources files alike. No mirror is written down here.
apt_mirror() {
    local file
    for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$file" ] || continue
        awk -v suite="$SUITE" '
            $1 == "deb" {
                i = 2
                if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
                if ($(i + 1) == suite) { print $i; exit }
            }' "$file"
    done
    for file in /etc/apt/sources.list.d/*.sources; do
        [ -f "$file" ] || continue
        awk -v suite="$SUITE" '
            BEGIN { RS = ""; FS = "\n" }
            {
                types = ""; uris = ""; suites = ""; enabled = "yes"
                for (n = 1; n <= NF; n++) {
                    line = $n
                    if (line ~ /^#/) continue
                    split(line, kv, ":")
                    key = tolower(kv[1]); value = substr(line, length(kv[1]) + 2)
                    gsub(/^[ \t]+|[ \t]+$/, "", value)
                    if (key == "types") types = value
                    else if (key == "uris") uris = value
                    else if (key == "suites") suites = value
                    else if (key == "enabled") enabled = tolower(value)
                }
                if (enabled == "no" || (" " types " ") !~ / deb /) next
                if ((" " suites " ") !~ (" " suite " ")) next
                split(uris, list, /[ \t]+/); print list[1]; exit
            }' "$file"
    done
}

make_rootfs() {
    local mirror staging
    mirror=$(apt_mirror | head -n 1)
    [ -n "$mirror" ] || skip "apt has no \"deb\" source for $SUITE on this machine, so debootstrap has no mirror"
    staging="$CACHE_DIR/debootstrap"
    rm -rf "$staging"
    mkdir -p "$CACHE_DIR"
    log "debootstrap $SUITE from $mirror (first run only; takes a few minutes)"
    if ! debootstrap --variant=minbase --include="$INCLUDE" "$SUITE" "$staging" "$mirror" \
        >"$CACHE_DIR/debootstrap.log" 2>&1; then
        tail -n 20 "$CACHE_DIR/debootstrap.log"
        rm -rf "$staging"
        skip "debootstrap failed (log: $CACHE_DIR/debootstrap.log)"
    fi
    # A quiet, quick boot: no login prompts on the console, a fixed host name.
    echo filedrop-test >"$staging/etc/hostname"
    ln -sf /dev/null "$staging/etc/systemd/system/console-getty.service"
    ln -sf /dev/null "$staging/etc/systemd/system/getty@.service"
    rm -f "$staging/etc/machine-id"
    : >"$staging/etc/machine-id"
    apt-get clean -o "RootDir=$staging" 2>/dev/null || rm -rf "$staging/var/cache/apt/archives/"*.deb
    tar -C "$staging" --numeric-owner -cf "$ROOTFS_TAR.partial" .
    mv "$ROOTFS_TAR.partial" "$ROOTFS_TAR"
    rm -rf "$staging"
}

if [ ! -f "$ROOTFS_TAR" ]; then
    make_rootfs
fi
log "unpacking the cached root file system"
rm -rf "$MACHINE"
mkdir -p "$MACHINE"
tar -C "$MACHINE" --numeric-owner -xf "$ROOTFS_TAR"
cp "$DEB" "$MACHINE/root/filedrop.deb"

# ---------------------------------------------------------------------------
# Boot, and always tear down

stop_container() {
    if [ -n "$NSPAWN_PID" ] && kill -0 "$NSPAWN_PID" 2>/dev/null; then
        # systemd-nspawn turns SIGTERM into an orderly shutdown of the container.
        kill -TERM "$NSPAWN_PID" 2>/dev/null || true
        local waited=0
        while kill -0 "$NSPAWN_PID" 2>/dev/null && [ $waited -lt 100 ]; do
            sleep 0.1; waited=$((waited + 1))
        done
        kill -KILL "$NSPAWN_PID" 2>/dev/null || true
        wait "$NSPAWN_PID" 2>/dev/null || true
    fi
    if [ "${SYSTEMD_TEST_KEEP:-0}" != 1 ]; then
        rm -rf "$MACHINE"
    fi
}
trap stop_container EXIT
trap 'exit 130' INT TERM

log "booting the container"
systemd-nspawn -b -D "$MACHINE" --register=no --keep-unit --private-network \
    --console=read-only --machine=filedrop-test >"$BOOT_LOG" 2>&1 &
NSPAWN_PID=$!

# The container's init is the descendant of systemd-nspawn whose PID is 1 in its own
# PID namespace ("NSpid: <host pid> 1").
find_container_init() {
    local pid children
    children=$(pgrep -P "$NSPAWN_PID" || true)
    for pid in $children $(for c in $children; do pgrep -P "$c" || true; done); do
        if awk '/^NSpid:/ { exit !($NF == 1 && NF > 2) }' "/proc/$pid/status" 2>/dev/null; then
            echo "$pid"
            return 0
        fi
    done
    return 1
}

# in_container TIMEOUT COMMAND...: runs COMMAND in every namespace of the container.
in_container() {
    local limit=$1
    shift
    timeout --kill-after=5 "$limit" nsenter --target "$CONTAINER_PID" --all --root --wd \
        env -i PATH="$CONTAINER_PATH" LANG=C.UTF-8 SYSTEMD_COLORS=0 SYSTEMD_PAGER= "$@"
}

for _ in $(seq 1 300); do
    kill -0 "$NSPAWN_PID" 2>/dev/null || fail_setup "systemd-nspawn exited during boot"
    CONTAINER_PID=$(find_container_init || true)
    [ -n "$CONTAINER_PID" ] && break
    sleep 0.1
done
[ -n "$CONTAINER_PID" ] || fail_setup "no container init appeared within 30s"

state=""
for _ in $(seq 1 120); do
    state=$(in_container 10 systemctl is-system-running 2>/dev/null || true)
    case "$state" in running|degraded) break ;; esac
    sleep 0.5
done
case "$state" in
    running|degraded) log "container is up (init pid $CONTAINER_PID, system $state)" ;;
    *) fail_setup "the container's systemd did not finish booting within 60s (state: ${state:-none})" ;;
esac
if [ "$state" = degraded ]; then
    log "failed units in the container (not ours): $(in_container 10 systemctl --failed --no-legend --plain | awk '{print $1}' | tr '\n' ' ')"
fi

# ---------------------------------------------------------------------------
# Checks

pass() { PASSED=$((PASSED + 1)); log "ok   $1"; }
fail() { FAILED=$((FAILED + 1)); log "FAIL $1"; shift; [ $# -eq 0 ] || printf '       %s\n' "$@"; }

# check DESCRIPTION COMMAND...: passes when COMMAND exits 0.
check() {
    local description=$1 output
    shift
    if output=$("$@" 2>&1); then pass "$description"; else fail "$description" "$output"; fi
}

# check_equal DESCRIPTION EXPECTED ACTUAL: passes when both are the same non-empty text.
check_equal() {
    if [ -n "$2" ] && [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected: $2" "got:      $3"; fi
}

# wait_until SECONDS COMMAND...: polls COMMAND every 0.2s; fails after SECONDS.
wait_until() {
    local deadline=$((SECONDS + $1))
    shift
    until "$@" >/dev/null 2>&1; do
        [ $SECONDS -lt $deadline ] || return 1
        sleep 0.2
    done
}

property() { in_container 10 systemctl show --value -p "$2" "$1"; }
property_is() { [ "$(property "$1" "$2")" = "$3" ]; }
# grep reads to the end (no -q): an early exit would fail journalctl with SIGPIPE under pipefail.
journal_has() { in_container 10 journalctl --no-pager -o verbose -u filedrop.service | grep -- "$1" >/dev/null; }
unit_is() { [ "$(in_container 10 systemctl is-active "$1")" = "$2" ]; }
is_dynamic_uid() { [ -n "$1" ] && [ "$1" -ge 61184 ] && [ "$1" -le 65519 ]; }
# The uid of the package's system user (systemd-sysusers gives one below 1000).
filedrop_uid() { in_container 10 id -u filedrop; }
# systemd 252 does not wait for the reload (ExecReload= only sends SIGHUP): wait for the
# journal's next "configuration reloaded".
reloads() { in_container 10 journalctl --no-pager -o cat -u filedrop.service | awk '/configuration reloaded/ { n++ } END { print n + 0 }'; }
reload_finished() {
    local before
    before=$(reloads)
    in_container 30 systemctl reload filedrop.service || return 1
    wait_until 10 eval '[ "$(reloads)" -gt "$before" ]'
}
main_uid() { in_container 10 awk '/^Uid:/ { print $2 }' "/proc/$(property filedrop.service MainPID)/status"; }

# HTTPS clients verify against one CA and nothing else: curl --cacert (the CA the daemon
# made, as /ca.crt serves it, or the test's own CA for tls = files).
CA=/root/ca.pem
TLS_DIR=/var/lib/filedrop-tls
SAVE_DIR=/var/lib/filedrop
https_get() { in_container 15 curl -fsS --max-time 10 --cacert "$CA" "https://127.0.0.1:8443$1"; }
# The SHA-256 of a certificate file on the host's side of the container tree, AB:CD:...
fingerprint_of() { openssl x509 -noout -fingerprint -sha256 -in "$MACHINE$1" | sed 's/^.*=//'; }
# The leaf the container serves at HOST:PORT, fetched by the host's openssl inside the
# container's network namespace, verified against CA (a host path) for 127.0.0.1.
served_fingerprint() {
    timeout 15 nsenter --target "$CONTAINER_PID" --net \
        openssl s_client -connect "$1" -verify_return_error -verify_ip 127.0.0.1 -CAfile "$2" </dev/null 2>/dev/null |
        openssl x509 -noout -fingerprint -sha256 | sed 's/^.*=//'
}
served_is() { [ "$(served_fingerprint "$1" "$2")" = "$3" ]; }

# The container's private network has only lo, which mDNS does not use: a veth pair
# carries it (the host's ip, in the container's network namespace; the dummy driver may be
# missing). avahi-daemon uses mdns0 (192.0.2.10); mdns1, up without addresses, only gives
# mdns0 its carrier. Avahi's own packets loop back to its cache, which avahi-browse reads.
add_mdns_interface() {
    timeout 10 nsenter --target "$CONTAINER_PID" --net sh -c \
        'ip link add mdns0 type veth peer name mdns1 && echo 1 > /proc/sys/net/ipv6/conf/mdns1/disable_ipv6 &&
         ip link set mdns1 up && ip link set mdns0 up && ip addr add 192.0.2.10/24 dev mdns0'
}
check "a veth interface with multicast for mDNS (mdns0, 192.0.2.10)" add_mdns_interface
check "avahi-daemon runs in the container" wait_until 20 unit_is avahi-daemon.service active
check "the system bus is Debian 12's dbus-daemon" wait_until 20 unit_is dbus.service active
check "dbus-broker is not installed" in_container 10 sh -c '! dpkg-query -W dbus-broker'

# 1. The package: dpkg installs it, the maintainer scripts make the user filedrop, enable
#    and start the service. Earlier packages ran it with DynamicUser=yes (files in
#    /var/lib/private, owned by a transient uid): a drop-in makes this first install run
#    that way (a User= of another name, as the filedrop user exists by then), and the
#    upgrade below, which drops it, must move the files back and hand them to filedrop.
EARLIER_DROPIN=/etc/systemd/system/filedrop.service.d/earlier-package.conf
check "a drop-in runs the first install as earlier packages did (DynamicUser=yes)" in_container 10 sh -c \
    "mkdir -p ${EARLIER_DROPIN%/*} && printf '[Service]\nDynamicUser=yes\nUser=filedrop-dynamic\nGroup=filedrop-dynamic\n' > $EARLIER_DROPIN"
INSTALL_OUTPUT=$(in_container 120 dpkg -i /root/filedrop.deb 2>&1) && installed=yes || installed=no
check_equal "dpkg -i installs the package" yes "$installed"
# deb-systemd-invoke refuses to start a disabled unit with "... is a disabled or a static
# unit": the sockets are enabled before they are started, so nothing says that.
check "dpkg -i says nothing of a disabled or static unit" sh -c '! printf "%s" "$1" | grep -q "static unit"' _ "$INSTALL_OUTPUT"
check "dpkg -i tells how to read uploads without sudo" sh -c 'printf "%s" "$1" | grep -q "usermod -aG filedrop"' _ "$INSTALL_OUTPUT"
check "the package made the system user filedrop (nologin, uid below 1000)" in_container 10 sh -c \
    'getent passwd filedrop | awk -F: '"'"'$3 < 1000 && $7 ~ /nologin$/ { ok = 1 } END { exit !ok }'"'"
check "filedrop.service is enabled by the package" property_is filedrop.service UnitFileState enabled
check "filedrop.socket is enabled by the package" property_is filedrop.socket UnitFileState enabled
check "filedrop-https.socket is enabled by the package" property_is filedrop-https.socket UnitFileState enabled
check "filedrop.service was started by postinst" wait_until 20 unit_is filedrop.service active
conffile_listed() { in_container 10 dpkg-query -W -f='${Conffiles}' filedrop | grep /etc/filedrop/filedrop.conf >/dev/null; }
check "/etc/filedrop/filedrop.conf is a conffile" conffile_listed
check "the packaged configuration says tls = auto" in_container 10 grep -x 'tls = auto' /etc/filedrop/filedrop.conf

# The CA is made at the first start and kept from then on: the upgrade below must not
# make a new one (every device that installed it would stop trusting the server).
earlier_uid=$(main_uid || true)
if is_dynamic_uid "$earlier_uid"; then pass "the earlier layout: a dynamic uid ($earlier_uid)"
else fail "the first install should run as a dynamic user" "uid: $earlier_uid"; fi
first_ca=$(fingerprint_of "/var/lib/private/filedrop-tls/ca.crt" 2>/dev/null || true)
check "the earlier layout: the CA in /var/lib/private/filedrop-tls, /var/lib/filedrop-tls a link to it" \
    test -n "$first_ca" -a -L "$MACHINE$TLS_DIR"
check "an upload of the earlier package's days, the dynamic user's" in_container 10 sh -c \
    "install -m 0640 -o $earlier_uid -g $earlier_uid /etc/hostname /var/lib/private/filedrop/earlier.txt"
reinstall_restarts() {
    local before after
    before=$(property filedrop.service MainPID)
    in_container 10 sh -c "rm $EARLIER_DROPIN && rmdir ${EARLIER_DROPIN%/*}"
    in_container 120 dpkg -i /root/filedrop.deb >/dev/null
    after=$(property filedrop.service MainPID)
    [ "$before" != 0 ] && [ "$after" != 0 ] && [ "$before" != "$after" ]
}
check "upgrading to this package (drop-in gone) restarts the running service" reinstall_restarts
check "still enabled after the upgrade" property_is filedrop.service UnitFileState enabled
check_equal "the upgrade keeps the CA" "$first_ca" "$(fingerprint_of "$TLS_DIR/ca.crt" 2>/dev/null || true)"
check_equal "the service runs as filedrop now" "$(filedrop_uid)" "$(main_uid)"
moved_back() {
    local dir
    for dir in filedrop filedrop-tls; do
        [ -d "$MACHINE/var/lib/$dir" ] && [ ! -L "$MACHINE/var/lib/$dir" ] && [ ! -e "$MACHINE/var/lib/private/$dir" ] ||
            { ls -la "$MACHINE/var/lib" "$MACHINE/var/lib/private"; return 1; }
    done
}
check "systemd moved both state directories back from /var/lib/private" moved_back
# (-o cat: the message has a newline, which -o verbose would show as a blob.)
migration_logged() { in_container 10 journalctl --no-pager -o cat -u filedrop.service | grep -F "Found pre-existing private StateDirectory=" >/dev/null; }
check "and logged that it did" migration_logged
handed_over() {
    local uid
    uid=$(filedrop_uid)
    in_container 10 stat -c '%n %u %a' $SAVE_DIR/earlier.txt $TLS_DIR/ca.key $TLS_DIR
    [ "$(in_container 10 stat -c '%u %a' $SAVE_DIR/earlier.txt)" = "$uid 640" ] &&
        [ "$(in_container 10 stat -c '%u %a' $TLS_DIR/ca.key)" = "$uid 600" ] &&
        [ "$(in_container 10 stat -c '%u %a' $TLS_DIR)" = "$uid 700" ]
}
check "the earlier files belong to filedrop now, modes kept (earlier.txt, ca.key, the directory)" handed_over

# 2. Readiness and status.
status=$(property filedrop.service StatusText || true)
if [[ "$status" == *"listening on http://[::]:8080, https://[::]:8443"* ]]; then pass "StatusText says where it listens: $status"
else fail "StatusText should name both ports" "StatusText=$status"; fi
check "Type=notify" property_is filedrop.service Type notify
check "WatchdogSec=30s reaches the manager" property_is filedrop.service WatchdogUSec 30s
# Small files of the save directory are trusted between changes inotify reports (README,
# "Small files from memory"): the sandbox (ProtectProc=invisible, the system call filter)
# must leave the daemon its watch, an inotify watch on the save directory's inode (fdinfo
# gives it in hex).
watches_save_dir() {
    in_container 10 sh -c 'pid=$(systemctl show -p MainPID --value filedrop.service)
        inode=$(printf "%x" "$(stat -c %i /var/lib/filedrop)")
        cat /proc/"$pid"/fdinfo/* | grep "^inotify wd:" | grep " ino:$inode " >/dev/null'
}
check "the daemon watches the save directory with inotify (small files trusted between changes)" watches_save_dir

# Figures for people (printed, not asserted): how long from exec to READY=1.
started=$(property filedrop.service ExecMainStartTimestampMonotonic || true)
active=$(property filedrop.service ActiveEnterTimestampMonotonic || true)
if [ -n "$started" ] && [ -n "$active" ] && [ "$active" -ge "$started" ] 2>/dev/null; then
    pass "start to READY=1 took $(( (active - started) / 1000 )) ms"
else
    fail "start and READY=1 timestamps should be known" "$started -> $active"
fi

# 2b. Discovery: DNS-SD over mDNS through avahi-daemon, withdrawn on stop; without
#     avahi-daemon filedrop starts anyway and says so in one line, and announces once
#     avahi-daemon is back; a reload renames the announcement.
# browsed TYPE: avahi-browse's resolved lines (=;iface;proto;name;type;domain;host;address;port;txt),
# with the decimal escapes it writes in names (\032 for a space, \035 for #) decoded.
browsed() { in_container 20 avahi-browse --resolve --parsable --terminate "$1" 2>/dev/null | grep '^=' | perl -pe 's/\\(\d{3})/chr($1)/ge' || true; }
# announced TYPE NAME PORT: resolved with that name, port and TXT path=/.
announced() {
    browsed "$1" | awk -F';' -v name="$2" -v port="$3" '$4 == name && $9 == port && $10 ~ /"path=\/"/ { ok = 1 } END { exit !ok }'
}
not_announced() { ! browsed "$1" | awk -F';' -v name="$2" '$4 == name { found = 1 } END { exit !found }'; }
MDNS_NAME="filedrop on filedrop-test"
check "avahi-browse _http._tcp lists \"$MDNS_NAME\" on port 8080 with path=/" wait_until 15 announced _http._tcp "$MDNS_NAME" 8080
check "avahi-browse _https._tcp lists it on port 8443 with path=/" wait_until 15 announced _https._tcp "$MDNS_NAME" 8443
log "what avahi-browse -rpt _http._tcp shows:"
browsed _http._tcp | sed 's/^/       /'
check "the journal says it is announced" journal_has "mdns: announced on the LAN as \"$MDNS_NAME\""
# A second instance under the same name (another filedrop on this machine, or one on the
# LAN): Avahi reports the collision and the newcomer takes Avahi's alternative, "NAME #2".
# A transient service as the same user, plain HTTP on 8090, its own state directory.
twin_journal() { in_container 10 journalctl --no-pager -o cat -u filedrop-twin.service; }
twin_says() { twin_journal | grep -F -- "$1" >/dev/null; }
check "a second filedrop with mdns-name \"$MDNS_NAME\" starts (systemd-run)" in_container 30 systemd-run --unit=filedrop-twin \
    --property=User=filedrop --property=StateDirectory=filedrop-twin /usr/bin/filedrop --tls off --listen '[::]:8090' --mdns-name "$MDNS_NAME"
check "avahi-browse lists the second as \"$MDNS_NAME #2\" on port 8090" wait_until 15 announced _http._tcp "$MDNS_NAME #2" 8090
check "while the first keeps its name on 8080" announced _http._tcp "$MDNS_NAME" 8080
check "the second logs the collision and the name it took" twin_says "mdns: the name \"$MDNS_NAME\" is taken on the LAN, trying \"$MDNS_NAME #2\""
check "and that it is announced under it" twin_says "mdns: announced on the LAN as \"$MDNS_NAME #2\""
check "the second stops" in_container 60 systemctl stop filedrop-twin.service
check "and \"$MDNS_NAME #2\" is withdrawn" wait_until 15 not_announced _http._tcp "$MDNS_NAME #2"
# An address change: a new interface with an address appears. The wildcard listener's
# services are registered for every interface (AVAHI_IF_UNSPEC), which avahi-daemon
# announces on each interface that comes up by itself (avahi-core announce.c,
# avahi_announce_interface); filedrop re-plans on the netlink event, and nothing changes.
add_second_interface() {
    timeout 10 nsenter --target "$CONTAINER_PID" --net sh -c \
        'ip link add mdns2 type veth peer name mdns3 && echo 1 > /proc/sys/net/ipv6/conf/mdns3/disable_ipv6 &&
         ip link set mdns3 up && ip link set mdns2 up && ip addr add 198.51.100.10/24 dev mdns2'
}
# announced_on TYPE INTERFACE NAME ADDRESS: resolved on that interface with that address.
announced_on() {
    browsed "$1" | awk -F';' -v iface="$2" -v name="$3" -v address="$4" '$2 == iface && $4 == name && $8 == address { ok = 1 } END { exit !ok }'
}
check "a new interface appears while filedrop runs (mdns2, 198.51.100.10)" add_second_interface
check "avahi-browse lists filedrop on mdns2 with 198.51.100.10, no restart or reload" \
    wait_until 20 announced_on _http._tcp mdns2 "$MDNS_NAME" 198.51.100.10
check "a reload with mdns-name = Lab drop" in_container 10 sh -c 'echo "mdns-name = Lab drop" >> /etc/filedrop/filedrop.conf'
check "systemctl reload, finished (the journal says so)" reload_finished
check "the reload re-announces under the new name" wait_until 15 announced _http._tcp "Lab drop" 8080
check "and the old name is gone" wait_until 15 not_announced _http._tcp "$MDNS_NAME"
check "mdns-name goes again" in_container 10 sed -i '/^mdns-name = Lab drop$/d' /etc/filedrop/filedrop.conf
check "systemctl stop filedrop" in_container 60 systemctl stop filedrop.service
check "after stop, _http._tcp no longer lists filedrop" wait_until 15 not_announced _http._tcp "Lab drop"
check "nor _https._tcp" wait_until 15 not_announced _https._tcp "Lab drop"
check "avahi-daemon stopped and masked" in_container 30 sh -c \
    'systemctl stop avahi-daemon.socket avahi-daemon.service && systemctl mask avahi-daemon.socket avahi-daemon.service'
check "filedrop starts without avahi-daemon" in_container 60 systemctl start filedrop.service
check "and is active" wait_until 10 unit_is filedrop.service active
# mdns_lines: this run's log lines about mDNS or Avahi.
mdns_lines() {
    in_container 10 journalctl --no-pager -o cat -u filedrop.service _SYSTEMD_INVOCATION_ID="$(property filedrop.service InvocationID)" |
        grep -iE 'mdns|avahi' || true
}
without_avahi=$(mdns_lines)
if [ "$(grep -c . <<<"$without_avahi")" = 1 ]; then pass "it logs exactly one line about it: $without_avahi"
else fail "without avahi-daemon filedrop should log one line about mDNS" "$without_avahi"; fi
check "avahi-daemon unmasked and started again" in_container 30 sh -c \
    'systemctl unmask avahi-daemon.socket avahi-daemon.service && systemctl start avahi-daemon.service'
check "filedrop announces itself once avahi-daemon is back" wait_until 20 announced _http._tcp "$MDNS_NAME" 8080
check "the journal says avahi-daemon is running now" journal_has "mdns: avahi-daemon is running now"

# A CA of the test's own and two leaves it signed, for tls = files (section 9) and as the
# wrong CA for tls = auto.
TEST_PKI=/etc/filedrop-test
# make_leaf NAME: an ECDSA P-256 leaf for 127.0.0.1 and localhost, signed by the test CA.
make_leaf() {
    local dir="$MACHINE$TEST_PKI"
    openssl ecparam -name prime256v1 -genkey -noout -out "$dir/$1.key" &&
        openssl req -new -key "$dir/$1.key" -subj "/CN=$1" -out "$dir/$1.csr" &&
        printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n' >"$dir/leaf.ext" &&
        openssl x509 -req -in "$dir/$1.csr" -CA "$dir/test-ca.crt" -CAkey "$dir/test-ca.key" -CAcreateserial \
            -days 2 -sha256 -extfile "$dir/leaf.ext" -out "$dir/$1.crt"
}
make_test_pki() {
    local dir="$MACHINE$TEST_PKI"
    install -d -m 0700 "$dir" &&
        openssl ecparam -name prime256v1 -genkey -noout -out "$dir/test-ca.key" &&
        openssl req -x509 -new -key "$dir/test-ca.key" -sha256 -days 2 -subj "/CN=filedrop systemd test CA" \
            -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign -out "$dir/test-ca.crt" &&
        make_leaf first && make_leaf renewed &&
        install -m 0644 "$dir/first.crt" "$dir/leaf.crt" && install -m 0600 "$dir/first.key" "$dir/leaf.key"
}
check "a test CA and two leaves (first, renewed) in $TEST_PKI" make_test_pki
TEST_CA="$MACHINE$TEST_PKI/test-ca.crt"
first_leaf=$(fingerprint_of "$TEST_PKI/first.crt" || true)
renewed_leaf=$(fingerprint_of "$TEST_PKI/renewed.crt" || true)

# 3. HTTPS with the package's tls = auto: filedrop's own CA, in the second state directory.
check_equal "$TLS_DIR is mode 0700, owned by filedrop" "700 filedrop" "$(in_container 10 stat -c '%a %U' $TLS_DIR)"
check_equal "ca.key is mode 0600, owned by filedrop" "600 filedrop" "$(in_container 10 stat -c '%a %U' $TLS_DIR/ca.key)"
check "ca.crt and server.crt are there" in_container 10 test -s "$TLS_DIR/ca.crt" -a -s "$TLS_DIR/server.crt"
check "/var/lib/filedrop-tls is the second state directory (a directory, no link)" test -d "$MACHINE$TLS_DIR" -a ! -L "$MACHINE$TLS_DIR"
no_tls_in_save_dir() {
    local found
    found=$(in_container 10 sh -c "find $SAVE_DIR \( -name '*.key' -o -name '*.crt' -o -name '*.pem' \) -print;
        grep -rlE 'PRIVATE KEY|BEGIN CERTIFICATE' $SAVE_DIR || true")
    [ -z "$found" ] || { echo "in the save directory: $found"; return 1; }
}
check "nothing TLS-related is inside $SAVE_DIR (which is served)" no_tls_in_save_dir
ca_on_disk=$(fingerprint_of "$TLS_DIR/ca.crt" || true)
status_ca=$(sed -n 's/.*CA SHA-256 \([0-9A-F:]*\).*/\1/p' <<<"$status")
check_equal "StatusText's CA fingerprint is openssl's SHA-256 of ca.crt" "$ca_on_disk" "$status_ca"
check "the journal carries it as FILEDROP_TLS_CA_FINGERPRINT" journal_has "FILEDROP_TLS_CA_FINGERPRINT=$ca_on_disk"
# A device fetches the CA over plain HTTP before it trusts anything: /ca.crt, DER.
ca_type=$(in_container 15 curl -fsS --max-time 10 -o /root/ca.der -w '%{content_type}' http://127.0.0.1:8080/ca.crt || true)
check_equal "/ca.crt over plain HTTP is application/x-x509-ca-cert" "application/x-x509-ca-cert" "$ca_type"
openssl x509 -inform DER -in "$MACHINE/root/ca.der" -out "$MACHINE$CA" 2>/dev/null || true
check_equal "/ca.crt is the CA in $TLS_DIR" "$ca_on_disk" "$(fingerprint_of "$CA" 2>/dev/null || true)"
page_served() { in_container 15 curl -fsS --max-time 10 --cacert "$CA" "$@" | grep -i '<html' >/dev/null; }
check "curl --cacert CA https://127.0.0.1:8443/ serves the page" page_served https://127.0.0.1:8443/
check "curl --cacert CA https://localhost:8443/ serves the page" page_served https://localhost:8443/
check "curl --cacert CA https://[::1]:8443/ serves the page (IPv6 on [::]:8443)" page_served "https://[::1]:8443/"
check "the certificate names the host name (filedrop-test)" page_served --resolve filedrop-test:8443:127.0.0.1 https://filedrop-test:8443/
check "the certificate names filedrop-test.local" page_served --resolve filedrop-test.local:8443:127.0.0.1 https://filedrop-test.local:8443/
another_ca_refused() {
    local code
    code=$(in_container 15 curl -sS --max-time 10 -o /dev/null --cacert "$TEST_PKI/test-ca.crt" https://127.0.0.1:8443/ 2>&1; echo "exit $?")
    [[ "$code" == *"exit 60" ]] || { echo "$code"; return 1; }
}
check "with another CA, curl refuses the certificate (exit 60: the checks are real)" another_ca_refused

# The plain port (http-mode = redirect): pages go to HTTPS, nothing secret crosses it.
redirect=$(in_container 15 curl -sS --max-time 10 -o /dev/null -w '%{http_code} %{redirect_url}' http://127.0.0.1:8080/ || true)
check_equal "GET / on plain 8080 is redirected to HTTPS" "308 https://127.0.0.1:8443/" "$redirect"
in_container 10 sh -c 'echo "never in the clear" > /root/plain.txt' || true
refused=$(in_container 15 curl -sS --max-time 10 -o /root/plain.out -w '%{http_code}' -F file=@/root/plain.txt http://127.0.0.1:8080/upload || true)
check_equal "an upload over plain HTTP is refused" 403 "$refused"
check "the refusal names the HTTPS URL" in_container 10 grep -F https://127.0.0.1:8443/upload /root/plain.out
check "the refused upload is not stored" in_container 10 test ! -e $SAVE_DIR/plain.txt
password=$(in_container 15 curl -sS --max-time 10 -o /dev/null -w '%{http_code}' -u someone:secret http://127.0.0.1:8080/files/ || true)
check_equal "a password over plain HTTP is refused" 403 "$password"
check "IPv4 and IPv6 both reach [::]:8080 (/ca.crt)" in_container 15 curl -fsS --max-time 10 -o /dev/null "http://[::1]:8080/ca.crt"

# 4. An upload over HTTPS lands in the state directory, the service user's.
check "curl -F uploads a file over HTTPS" in_container 20 curl -fsS --max-time 15 --cacert "$CA" -F file=@/etc/os-release https://127.0.0.1:8443/upload
check "the upload is in $SAVE_DIR, byte-identical" in_container 10 cmp /etc/os-release $SAVE_DIR/os-release
check_equal "the upload belongs to filedrop, mode 0640 (save-mode = group, UMask=0027)" "filedrop 640" "$(in_container 10 stat -c '%U %a' $SAVE_DIR/os-release)"
download_matches() { https_get /files/os-release | cmp - "$MACHINE/etc/os-release"; }
check "the upload downloads again over HTTPS" download_matches
# The client lives in /usr/libexec/filedrop (not a command of its own): `filedrop` finds it.
client() { in_container 30 env FILEDROP_URL=https://127.0.0.1:8443 HOME=/root filedrop "$@"; }
check "filedrop send --ca /ca.crt's DER uploads with the packaged client" client send --quiet --ca /root/ca.der /etc/debian_version
listed_by_client() { client ls --fingerprint "$status_ca" | grep -w debian_version >/dev/null; }
check "filedrop ls --fingerprint (the one systemctl status shows) lists it" listed_by_client
check "the journal shows the upload" journal_has "upload finished: os-release"
log "the journal for that upload (journalctl -u filedrop):"
in_container 10 journalctl --no-pager -o short-iso -u filedrop.service | grep -E "upload|POST /upload" | sed 's/^/       /' || true

. "$REPO_ROOT/Tests/Systemd/files.sh"

# 5. The journal: native entries with a MESSAGE_ID and FILEDROP_* fields.
check "journal entries carry a MESSAGE_ID" journal_has "MESSAGE_ID=35c6d7a76943405cbbdbc8dd6c3d481f"
check "journal entries carry FILEDROP_* fields" journal_has "FILEDROP_SAVE_DIR=/var/lib/filedrop"

# 6. Reload: SIGHUP re-reads the configuration file and the service stays up.
main_pid=$(property filedrop.service MainPID || true)
check "a new title goes into the configuration file" \
    in_container 10 sh -c 'echo "title = Reloaded by systemd" >> /etc/filedrop/filedrop.conf'
# (reload_finished counts "configuration reloaded": section 2b reloaded once already.)
check "systemctl reload succeeds, and the journal shows the reload" reload_finished
title_reloaded() { https_get /config.json | grep 'Reloaded by systemd' >/dev/null; }
check "the reloaded title is served" wait_until 10 title_reloaded
check "still active after reload" unit_is filedrop.service active
check "same main process after reload" property_is filedrop.service MainPID "$main_pid"

# Reload, restart and upgrade as an administrator meets them: Tests/Systemd/service.sh.
source "$REPO_ROOT/Tests/Systemd/service.sh"

# 7. Watchdog: with a 3s watchdog the service lives on, so it pings from its loop.
check "a runtime drop-in sets WatchdogSec=3s" in_container 10 sh -c 'mkdir -p /run/systemd/system/filedrop.service.d &&
    printf "[Service]\nWatchdogSec=3s\n" > /run/systemd/system/filedrop.service.d/watchdog.conf && systemctl daemon-reload'
check "restart with the short watchdog" in_container 60 systemctl restart filedrop.service
first_ping=$(property filedrop.service WatchdogTimestampMonotonic || true)
sleep 7
check "WatchdogSec=3s in force" property_is filedrop.service WatchdogUSec 3s
check "survives 7s with a 3s watchdog" unit_is filedrop.service active
check "no watchdog restarts" property_is filedrop.service NRestarts 0
last_ping=$(property filedrop.service WatchdogTimestampMonotonic || true)
if [ -n "$last_ping" ] && [ "$last_ping" != "${first_ping:-}" ] && [ "$last_ping" != 0 ]; then
    pass "watchdog pings arrive (WatchdogTimestampMonotonic $first_ping -> $last_ping)"
else
    fail "WatchdogTimestampMonotonic should advance" "$first_ping -> $last_ping"
fi
# A hung event loop (SIGSTOP) sends no more pings: systemd aborts and restarts the service.
hung_pid=$(property filedrop.service MainPID || true)
check "SIGSTOP freezes the main process" in_container 10 kill -STOP "$hung_pid"
restarted() {
    local pid
    pid=$(property filedrop.service MainPID)
    [ -n "$pid" ] && [ "$pid" != 0 ] && [ "$pid" != "$hung_pid" ] && unit_is filedrop.service active
}
check "the watchdog restarts a hung service with a new process" wait_until 30 restarted
check "the restart is counted" property_is filedrop.service NRestarts 1
check "the journal records the watchdog timeout" wait_until 10 journal_has "Watchdog timeout"
check "the drop-in is removed again" in_container 30 sh -c 'rm -rf /run/systemd/system/filedrop.service.d && systemctl daemon-reload'

# 8. Stop drains: an upload in flight over HTTPS when SIGTERM arrives completes, and
#    systemd records a clean exit (no SIGKILL after TimeoutStopSec=).
check "restart with the packaged unit" in_container 60 systemctl restart filedrop.service
check "WatchdogSec back to 30s" property_is filedrop.service WatchdogUSec 30s
check "the restarts kept the CA (the same certificate verifies)" https_get /config.json
in_container 10 sh -c 'head -c 600000 /dev/urandom > /root/slow.bin' || true
in_container 60 sh -c "curl -sS --max-time 40 --limit-rate 150K --cacert $CA -F file=@/root/slow.bin \
    -o /dev/null -w '%{http_code}' https://127.0.0.1:8443/upload > /root/slow.code 2>&1" &
slow_upload=$!
sleep 1
# ProcSubset=pid and ProtectProc=invisible leave /proc/self/fd, so the upload is an
# O_TMPFILE file ("#<inode> (deleted)") rather than the named .filedrop-tmp- fallback.
anonymous_temporary() {
    local pid
    pid=$(property filedrop.service MainPID)
    in_container 10 ls -l "/proc/$pid/fd" | grep -E 'filedrop/#[0-9]+ \(deleted\)' >/dev/null
}
check "the upload in flight is an O_TMPFILE file inside the sandbox" anonymous_temporary
check "systemctl stop returns" in_container 60 systemctl stop filedrop.service
wait "$slow_upload" 2>/dev/null || true
code=$(in_container 10 cat /root/slow.code 2>/dev/null || true)
if [[ "$code" == 2* ]]; then pass "the HTTPS upload in flight at SIGTERM completed (HTTP $code)"
else fail "the upload in flight at SIGTERM should complete while draining" "curl said: $code"; fi
check "the drained upload is stored intact" in_container 10 cmp /root/slow.bin $SAVE_DIR/slow.bin
check "inactive after stop" unit_is filedrop.service inactive
check "stop Result=success (no timeout, no SIGKILL)" property_is filedrop.service Result success
check "exit status 0" property_is filedrop.service ExecMainStatus 0
check "the journal shows STOPPING" journal_has "stopping: finishing requests in progress"

# 9. tls = files with the certificate and key as systemd credentials (LoadCredential=):
#    the key on disk stays root's, mode 0600; the service reads systemd's copy.
check "a drop-in: LoadCredential=tls.crt, tls.key and FILEDROP_TLS=files" in_container 10 sh -c "mkdir -p /run/systemd/system/filedrop.service.d &&
    printf '[Service]\nLoadCredential=tls.crt:$TEST_PKI/leaf.crt\nLoadCredential=tls.key:$TEST_PKI/leaf.key\nEnvironment=FILEDROP_TLS=files\n' \
        > /run/systemd/system/filedrop.service.d/credentials.conf && systemctl daemon-reload"
check "the service starts with the credentials" in_container 60 systemctl start filedrop.service
check "it serves the credential's certificate (openssl s_client)" wait_until 10 served_is 127.0.0.1:8443 "$TEST_CA" "$first_leaf"
check "curl --cacert the test CA verifies it" in_container 15 curl -fsS --max-time 10 -o /dev/null --cacert "$TEST_PKI/test-ca.crt" https://localhost:8443/
check "the journal names the credential as its source" journal_has "certificate from /run/credentials/filedrop.service/tls.crt"
check "the key on disk is mode 0600, root's" in_container 10 test "$(stat -c '%a %U' "$MACHINE$TEST_PKI/leaf.key")" = "600 root"
check "the service runs as User=filedrop, no DynamicUser" property_is filedrop.service DynamicUser no
service_uid=$(main_uid || true)
check_equal "the main process runs as filedrop's uid" "$(filedrop_uid)" "$service_uid"
check "that user cannot read the key file on disk" in_container 10 sh -c \
    "! setpriv --reuid=$service_uid --regid=$service_uid --clear-groups cat $TEST_PKI/leaf.key >/dev/null 2>&1"
# systemd copies credentials when the service starts, not on reload (systemd 252, Debian 12):
# a reload after the source files change still reads the copy, so the old certificate
# stays; a restart copies the renewed files. README.systemd says the same.
check "the renewed pair replaces the credential's source files" in_container 10 sh -c \
    "cp $TEST_PKI/renewed.crt $TEST_PKI/leaf.crt && cp $TEST_PKI/renewed.key $TEST_PKI/leaf.key"
check "systemctl reload, finished (the journal says so)" reload_finished
check "after reload the credential still holds the certificate of the start (systemd copies at start)" \
    in_container 10 cmp "$TEST_PKI/first.crt" /run/credentials/filedrop.service/tls.crt
check "so reload serves the first certificate still" served_is 127.0.0.1:8443 "$TEST_CA" "$first_leaf"
check "systemctl restart" in_container 60 systemctl restart filedrop.service
check "after restart the renewed certificate is served" wait_until 10 served_is 127.0.0.1:8443 "$TEST_CA" "$renewed_leaf"
# Renewal by reload alone: tls-cert/tls-key paths the service may read (a group of its own,
# key mode 0640), no credentials. README.systemd shows this drop-in.
READABLE=/etc/filedrop-tls-test
check "a drop-in: SupplementaryGroups=filedrop-tls-test, tls-cert/tls-key paths" in_container 10 sh -c "groupadd -r filedrop-tls-test &&
    install -d -m 0750 -g filedrop-tls-test $READABLE &&
    install -m 0644 $TEST_PKI/first.crt $READABLE/tls.crt &&
    install -m 0640 -g filedrop-tls-test $TEST_PKI/first.key $READABLE/tls.key &&
    printf '[Service]\nSupplementaryGroups=filedrop-tls-test\nEnvironment=FILEDROP_TLS=files FILEDROP_TLS_CERT=$READABLE/tls.crt FILEDROP_TLS_KEY=$READABLE/tls.key\n' \
        > /run/systemd/system/filedrop.service.d/credentials.conf && systemctl daemon-reload"
check "restart with the readable paths" in_container 60 systemctl restart filedrop.service
check "it serves the first certificate from the path" wait_until 10 served_is 127.0.0.1:8443 "$TEST_CA" "$first_leaf"
check "the renewed pair is moved into place" in_container 10 sh -c "
    install -m 0644 $TEST_PKI/renewed.crt $READABLE/tls.crt.new && mv $READABLE/tls.crt.new $READABLE/tls.crt &&
    install -m 0640 -g filedrop-tls-test $TEST_PKI/renewed.key $READABLE/tls.key.new && mv $READABLE/tls.key.new $READABLE/tls.key"
reload_pid=$(property filedrop.service MainPID || true)
check "systemctl reload, finished (the journal says so)" reload_finished
check "reload alone serves the renewed certificate" wait_until 10 served_is 127.0.0.1:8443 "$TEST_CA" "$renewed_leaf"
check "same main process after that reload" property_is filedrop.service MainPID "$reload_pid"
check "stop, and the drop-in is removed again" in_container 60 sh -c 'systemctl stop filedrop.service &&
    rm -rf /run/systemd/system/filedrop.service.d && systemctl daemon-reload'

# Rotating the CA as README.systemd says: stop, remove the directory, start. A new CA; the
# old one verifies nothing any more; /ca.crt serves the new one.
old_ca=$(fingerprint_of "$CA" || true)
check "rotate: remove $TLS_DIR, start" in_container 60 sh -c "rm -rf $TLS_DIR && systemctl start filedrop.service"
rotated_ca=$(fingerprint_of "$TLS_DIR/ca.crt" 2>/dev/null || true)
if [ -n "$rotated_ca" ] && [ "$rotated_ca" != "$old_ca" ]; then pass "a new CA: $rotated_ca"
else fail "rotating should make a new CA" "before: $old_ca" "after:  $rotated_ca"; fi
old_ca_refused() {
    local code
    code=$(in_container 15 curl -sS --max-time 10 -o /dev/null --cacert "$CA" https://127.0.0.1:8443/ 2>&1; echo "exit $?")
    [[ "$code" == *"exit 60" ]] || { echo "$code"; return 1; }
}
check "the old CA no longer verifies the server (exit 60)" old_ca_refused
fetch_ca() {
    in_container 15 curl -fsS --max-time 10 -o /root/ca.der http://127.0.0.1:8080/ca.crt &&
        openssl x509 -inform DER -in "$MACHINE/root/ca.der" -out "$MACHINE$CA" &&
        [ "$(fingerprint_of "$CA")" = "$rotated_ca" ]
}
check "/ca.crt serves the new CA" fetch_ca
check "the new CA verifies the server" https_get /config.json
check "stop" in_container 60 systemctl stop filedrop.service

# 10. Socket activation as README.systemd documents it: the service disabled, both sockets
#     enabled, on ports 80 and 443 through drop-ins (the service has no capabilities, so
#     only sockets passed by systemd can serve there). tls = auto again, the rotated CA.
check "socket drop-ins move filedrop.socket to 80 and filedrop-https.socket to 443" in_container 30 sh -c '
    mkdir -p /etc/systemd/system/filedrop.socket.d /etc/systemd/system/filedrop-https.socket.d &&
    printf "[Socket]\nListenStream=\nListenStream=[::]:80\n" > /etc/systemd/system/filedrop.socket.d/port80.conf &&
    printf "[Socket]\nListenStream=\nListenStream=[::]:443\n" > /etc/systemd/system/filedrop-https.socket.d/port443.conf &&
    systemctl daemon-reload'
check "systemctl disable --now filedrop.service" in_container 30 systemctl disable --now filedrop.service
check "systemctl enable --now filedrop.socket filedrop-https.socket, restarted for the drop-ins" in_container 30 sh -c \
    'systemctl enable --now filedrop.socket filedrop-https.socket && systemctl restart filedrop.socket filedrop-https.socket'
check "the service stays down until a connection" unit_is filedrop.service inactive
check "an HTTPS request on port 443 is answered, verified with the CA" wait_until 20 \
    in_container 15 curl -fsS --max-time 10 -o /dev/null --cacert "$CA" https://localhost/config.json
check "the connection started filedrop.service" wait_until 10 unit_is filedrop.service active
check "an IPv6 HTTPS request on port 443 is answered" in_container 15 curl -fsS --max-time 10 -o /dev/null --cacert "$CA" "https://[::1]/config.json"
activated_status=$(property filedrop.service StatusText || true)
if [[ "$activated_status" == *"http://[::]:80, https://[::]:443"* ]]; then pass "StatusText shows the adopted sockets: $activated_status"
else fail "StatusText should show the sockets on ports 80 and 443" "StatusText=$activated_status"; fi
activated_redirect=$(in_container 15 curl -sS --max-time 10 -o /dev/null -w '%{http_code} %{redirect_url}' http://127.0.0.1/ || true)
check_equal "plain port 80 redirects to the passed HTTPS socket's port" "308 https://127.0.0.1/" "$activated_redirect"
nothing_on_own_ports() {
    ! in_container 15 curl -sS --max-time 5 -o /dev/null http://127.0.0.1:8080/ca.crt &&
        ! in_container 15 curl -sS --max-time 5 -o /dev/null --cacert "$CA" https://127.0.0.1:8443/
}
check "the service serves only the passed sockets, not listen= or https-listen=" nothing_on_own_ports
check "uploads over HTTPS work when socket-activated" in_container 20 curl -fsS --max-time 15 --cacert "$CA" -F file=@/etc/hostname https://127.0.0.1/upload
check "the socket-activated upload is stored" in_container 10 cmp /etc/hostname $SAVE_DIR/hostname
activated_upgrade() { in_container 120 dpkg -i /root/filedrop.deb >/dev/null; }
check "an upgrade while socket-activated" activated_upgrade
check "the upgrade keeps filedrop.socket enabled" property_is filedrop.socket UnitFileState enabled
check "the upgrade keeps filedrop-https.socket enabled" property_is filedrop-https.socket UnitFileState enabled
check "the upgrade keeps filedrop.service disabled" property_is filedrop.service UnitFileState disabled
check "HTTPS on 443 still answers after the upgrade" wait_until 20 \
    in_container 15 curl -fsS --max-time 10 -o /dev/null --cacert "$CA" https://127.0.0.1/config.json
check "stop all three" in_container 60 systemctl stop filedrop.socket filedrop-https.socket filedrop.service
check "socket-activated stop Result=success" property_is filedrop.service Result success

# 11. The sandbox as systemd rates it on this systemd (AF_NETLINK included, for address changes).
exposure=$(in_container 60 systemd-analyze security --no-pager filedrop.service 2>/dev/null \
    | sed -n 's/.*Overall exposure level for filedrop.service: \([0-9.]*\).*/\1/p')
if [ -n "$exposure" ] && awk -v e="$exposure" 'BEGIN { exit !(e <= 2.0) }'; then
    pass "systemd-analyze security: exposure $exposure (at most 2.0)"
else
    fail "systemd-analyze security should rate filedrop.service at most 2.0" "exposure: ${exposure:-unknown}"
fi

source "$REPO_ROOT/Tests/Systemd/journal.sh"

if [ "$FAILED" -gt 0 ]; then
    log "the service's journal, for the failures above:"
    in_container 10 journalctl --no-pager -u filedrop.service -u filedrop.socket -u filedrop-https.socket -n 80 -o short-monotonic || true
fi

# 12. Removal stops, masks, and keeps what the administrator enabled for a reinstall;
#     purge drops the units but keeps uploaded files and the CA, and says where they are.
check "dpkg --remove" in_container 120 dpkg --remove filedrop
check "remove masks filedrop-https.socket until purge" test "$(readlink "$MACHINE/etc/systemd/system/filedrop-https.socket")" = /dev/null
check "reinstalling after remove" in_container 120 dpkg -i /root/filedrop.deb
check "the reinstall restores filedrop-https.socket's enable state" property_is filedrop-https.socket UnitFileState enabled
check "the reinstall restores filedrop.socket's enable state" property_is filedrop.socket UnitFileState enabled
purge_output=$(in_container 120 dpkg --purge filedrop 2>&1) && pass "dpkg --purge" || fail "dpkg --purge" "$purge_output"
unit_removed() { ! in_container 10 systemctl cat filedrop.service; }
check "the service is gone after purge" unit_removed
no_links_left() {
    local left
    left=$(find "$MACHINE/etc/systemd/system" -name 'filedrop*' ! -name '*.d')
    [ -z "$left" ] || { echo "left: $left"; return 1; }
}
check "no enable or mask link is left after purge" no_links_left
check "purge keeps the uploaded files" in_container 10 test -f $SAVE_DIR/os-release
if [[ "$purge_output" == *"uploaded files are kept in $SAVE_DIR"* ]]; then pass "purge says where the uploads are kept"
else fail "purge should say where the uploads are kept" "dpkg said: $purge_output"; fi
check "purge keeps the system user (its files stay usable)" in_container 10 id -u filedrop
check "purge keeps the CA" in_container 10 test -s "$TLS_DIR/ca.key"
if [[ "$purge_output" == *"$TLS_DIR"* ]]; then pass "purge says where the CA is kept"
else fail "purge should say where the CA is kept" "dpkg said: $purge_output"; fi

log "finished in $((SECONDS - STARTED_AT))s"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
