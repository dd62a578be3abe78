#!/bin/bash
# Tests/Systemd/run.sh [PACKAGE.deb]
#
# Installs the filedrop Debian package into a Debian 12 container booted with a real
# systemd (systemd-nspawn -b) and checks that the daemon is a well-behaved service:
# enabled and started by the package, READY=1 and STATUS=, uploads land in the
# DynamicUser state directory, reload by SIGHUP, journal fields, socket activation,
# watchdog pings, a draining stop that systemd records as success, and the sandbox score.
#
# Needs root, debootstrap and systemd-nspawn. The root file system is made once with
# debootstrap from the mirror apt already uses here and kept as a tarball under
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
for tool in debootstrap systemd-nspawn nsenter; do
    command -v "$tool" >/dev/null || skip "$tool is not installed (apt-get install debootstrap systemd-container util-linux)"
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
INCLUDE="systemd,systemd-sysv,dbus,curl,$DEB_DEPENDS"
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
http_get() { in_container 15 curl -fsS --max-time 10 "http://127.0.0.1:8080$1"; }

# 1. The package: dpkg installs it, the maintainer scripts enable and start the service.
check "dpkg -i installs the package" in_container 120 dpkg -i /root/filedrop.deb
check "filedrop.service is enabled by the package" property_is filedrop.service UnitFileState enabled
check "filedrop.socket ships disabled" property_is filedrop.socket UnitFileState disabled
check "filedrop.service was started by postinst" wait_until 20 unit_is filedrop.service active
conffile_listed() { in_container 10 dpkg-query -W -f='${Conffiles}' filedrop | grep /etc/filedrop/filedrop.conf >/dev/null; }
check "/etc/filedrop/filedrop.conf is a conffile" conffile_listed

reinstall_restarts() {
    local before after
    before=$(property filedrop.service MainPID)
    in_container 120 dpkg -i /root/filedrop.deb >/dev/null
    after=$(property filedrop.service MainPID)
    [ "$before" != 0 ] && [ "$after" != 0 ] && [ "$before" != "$after" ]
}
check "reinstalling (an upgrade) restarts the running service" reinstall_restarts
check "still enabled after the upgrade" property_is filedrop.service UnitFileState enabled

# 2. Readiness and status.
status=$(property filedrop.service StatusText || true)
if [[ "$status" == *listening* ]]; then pass "StatusText says where it listens: $status"
else fail "StatusText should mention \"listening\"" "StatusText=$status"; fi
check "Type=notify" property_is filedrop.service Type notify
check "WatchdogSec=30s reaches the manager" property_is filedrop.service WatchdogUSec 30s
page_served() { http_get / | grep -i '<html' >/dev/null; }
check "the page is served from /usr/share/filedrop/web" page_served
check "IPv4 and IPv6 both reach [::]:8080" in_container 15 curl -fsS --max-time 10 "http://[::1]:8080/config.json"

# Figures for people (printed, not asserted): how long from exec to READY=1.
started=$(property filedrop.service ExecMainStartTimestampMonotonic || true)
active=$(property filedrop.service ActiveEnterTimestampMonotonic || true)
if [ -n "$started" ] && [ -n "$active" ] && [ "$active" -ge "$started" ] 2>/dev/null; then
    pass "start to READY=1 took $(( (active - started) / 1000 )) ms"
else
    fail "start and READY=1 timestamps should be known" "$started -> $active"
fi

# 3. An upload lands in the DynamicUser state directory.
check "curl -F uploads a file" in_container 20 curl -fsS --max-time 15 -F file=@/etc/os-release http://127.0.0.1:8080/upload
check "the upload is in /var/lib/private/filedrop" in_container 10 cmp /etc/os-release /var/lib/private/filedrop/os-release
check "/var/lib/filedrop is the state directory" in_container 10 test -f /var/lib/filedrop/os-release
owner=$(in_container 10 stat -c '%u %a' /var/lib/private/filedrop/os-release || true)
uid=${owner%% *}
if [ -n "$uid" ] && [ "$uid" -ge 61184 ] && [ "$uid" -le 65519 ]; then
    pass "the upload belongs to the dynamic user (uid $uid, mode ${owner##* })"
else
    fail "the upload should belong to a dynamic user (61184-65519)" "stat: $owner"
fi
download_matches() { http_get /files/os-release | cmp - "$MACHINE/etc/os-release"; }
check "the upload downloads again" download_matches
# The client lives in /usr/libexec/filedrop (not a command of its own): `filedrop` finds it.
client() { in_container 30 env FILEDROP_URL=http://127.0.0.1:8080 filedrop "$@"; }
check "filedrop send uploads with the packaged client" client send --quiet /etc/debian_version
listed_by_client() { client ls | grep -w debian_version >/dev/null; }
check "filedrop ls lists it" listed_by_client
check "the journal shows the upload" journal_has "upload finished: os-release"
log "the journal for that upload (journalctl -u filedrop):"
in_container 10 journalctl --no-pager -o short-iso -u filedrop.service | grep -E "upload|POST /upload" | sed 's/^/       /' || true

# 4. The journal: native entries with a MESSAGE_ID and FILEDROP_* fields.
check "journal entries carry a MESSAGE_ID" journal_has "MESSAGE_ID=35c6d7a76943405cbbdbc8dd6c3d481f"
check "journal entries carry FILEDROP_* fields" journal_has "FILEDROP_SAVE_DIR=/var/lib/filedrop"

# 5. Reload: SIGHUP re-reads the configuration file and the service stays up.
main_pid=$(property filedrop.service MainPID || true)
check "a new title goes into the configuration file" \
    in_container 10 sh -c 'echo "title = Reloaded by systemd" >> /etc/filedrop/filedrop.conf'
check "systemctl reload succeeds" in_container 30 systemctl reload filedrop.service
check "the journal shows the reload" wait_until 10 journal_has "configuration reloaded"
title_reloaded() { http_get /config.json | grep 'Reloaded by systemd' >/dev/null; }
check "the reloaded title is served" wait_until 10 title_reloaded
check "still active after reload" unit_is filedrop.service active
check "same main process after reload" property_is filedrop.service MainPID "$main_pid"

# 6. Watchdog: with a 3s watchdog the service lives on, so it pings from its loop.
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

# 7. Stop drains: an upload in flight when SIGTERM arrives completes, and systemd
#    records a clean exit (no SIGKILL after TimeoutStopSec=).
check "restart with the packaged unit" in_container 60 systemctl restart filedrop.service
check "WatchdogSec back to 30s" property_is filedrop.service WatchdogUSec 30s
in_container 10 sh -c 'head -c 600000 /dev/urandom > /root/slow.bin' || true
in_container 60 sh -c 'curl -sS --max-time 40 --limit-rate 150K -F file=@/root/slow.bin \
    -o /dev/null -w "%{http_code}" http://127.0.0.1:8080/upload > /root/slow.code 2>&1' &
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
if [[ "$code" == 2* ]]; then pass "the upload in flight at SIGTERM completed (HTTP $code)"
else fail "the upload in flight at SIGTERM should complete while draining" "curl said: $code"; fi
check "the drained upload is stored intact" in_container 10 cmp /root/slow.bin /var/lib/private/filedrop/slow.bin
check "inactive after stop" unit_is filedrop.service inactive
check "stop Result=success (no timeout, no SIGKILL)" property_is filedrop.service Result success
check "exit status 0" property_is filedrop.service ExecMainStatus 0
check "the journal shows STOPPING" journal_has "stopping: finishing requests in progress"

# 8. Socket activation, on port 80 through the drop-in README.systemd documents: the
#    service has no capabilities, so only a socket passed by systemd can serve there.
check "a socket drop-in moves filedrop.socket to port 80" in_container 30 sh -c 'mkdir -p /run/systemd/system/filedrop.socket.d &&
    printf "[Socket]\nListenStream=\nListenStream=[::]:80\n" > /run/systemd/system/filedrop.socket.d/port80.conf && systemctl daemon-reload'
check "filedrop.socket starts" in_container 30 systemctl start filedrop.socket
check "the service stays down until a connection" unit_is filedrop.service inactive
check "an IPv4 request on port 80 is answered" wait_until 20 in_container 15 curl -fsS --max-time 10 http://127.0.0.1:80/config.json
check "the connection started filedrop.service" wait_until 10 unit_is filedrop.service active
check "an IPv6 request on port 80 is answered" in_container 15 curl -fsS --max-time 10 "http://[::1]:80/config.json"
activated_status=$(property filedrop.service StatusText || true)
if [[ "$activated_status" == *":80"* ]]; then pass "StatusText shows the adopted socket: $activated_status"
else fail "StatusText should show the socket on port 80" "StatusText=$activated_status"; fi
nothing_on_8080() { ! in_container 15 curl -fsS --max-time 5 http://127.0.0.1:8080/config.json; }
check "the service serves only the passed socket, not listen= (8080)" nothing_on_8080
check "uploads work when socket-activated" in_container 20 curl -fsS --max-time 15 -F file=@/etc/hostname http://127.0.0.1:80/upload
check "stop both" in_container 60 systemctl stop filedrop.socket filedrop.service
check "socket-activated stop Result=success" property_is filedrop.service Result success
check "the socket drop-in is removed again" in_container 30 sh -c 'rm -rf /run/systemd/system/filedrop.socket.d && systemctl daemon-reload'

# 9. The sandbox as systemd rates it on this systemd.
exposure=$(in_container 60 systemd-analyze security --no-pager filedrop.service 2>/dev/null \
    | sed -n 's/.*Overall exposure level for filedrop.service: \([0-9.]*\).*/\1/p')
if [ -n "$exposure" ] && awk -v e="$exposure" 'BEGIN { exit !(e <= 2.0) }'; then
    pass "systemd-analyze security: exposure $exposure (at most 2.0)"
else
    fail "systemd-analyze security should rate filedrop.service at most 2.0" "exposure: ${exposure:-unknown}"
fi

if [ "$FAILED" -gt 0 ]; then
    log "the service's journal, for the failures above:"
    in_container 10 journalctl --no-pager -u filedrop.service -n 60 -o short-monotonic || true
fi

# 10. Removal stops and disables; purge keeps uploaded files.
check "dpkg --purge" in_container 120 dpkg --purge filedrop
unit_removed() { ! in_container 10 systemctl cat filedrop.service; }
check "the service is gone after purge" unit_removed
check "purge keeps the uploaded files" in_container 10 test -f /var/lib/private/filedrop/os-release

log "finished in $((SECONDS - STARTED_AT))s"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
