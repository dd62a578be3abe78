# Tests/Systemd/service.sh - sourced by run.sh (its helpers, the container and the CA).
#
# A service an admin can trust: `systemctl reload` fails, with the daemon's sentence in
# `systemctl status`, when the new configuration is invalid; `filedrop reload` works for root
# and the group filedrop and is refused for anyone else; an invalid configuration at start
# fails the unit once instead of restarting it in a loop; and a restart or an upgrade behind
# the package's sockets refuses or resets no connection of 50 clients polling a small file.
#
# Expects the packaged service active with tls = auto and $CA its CA; leaves it so.

CONF=/etc/filedrop/filedrop.conf
status_text() { in_container 10 systemctl status --no-pager --full -n 40 filedrop.service || true; }
status_says() { status_text | grep -F -- "$1" >/dev/null; }
sockets_active() { [ "$(in_container 10 systemctl is-active filedrop.socket filedrop-https.socket | sort -u)" = active ]; }
reload_runs_filedrop() { in_container 10 systemctl show -p ExecReload filedrop.service | grep -F 'path=/usr/bin/filedrop' >/dev/null; }
no_debug_dump() { ! in_container 10 journalctl --no-pager -o cat -u filedrop.service | grep -E 'StartupError|exitCode:' >/dev/null; }

# S1. A reload of an invalid configuration fails and says why; the running one stays.
check "the package enabled filedrop.socket" property_is filedrop.socket UnitFileState enabled
check "the package enabled filedrop-https.socket" property_is filedrop-https.socket UnitFileState enabled
check "the service listens through the sockets (both active)" sockets_active
check "ExecReload= runs filedrop reload" reload_runs_filedrop
check "RestartPreventExitStatus=2" property_is filedrop.service RestartPreventExitStatus 2
service_pid=$(property filedrop.service MainPID || true)
check "an invalid value goes into $CONF (access = drop, no password)" in_container 10 sh -c "echo 'access = drop' >> $CONF"
reload_refused() { ! in_container 30 systemctl reload filedrop.service; }
check "systemctl reload fails" reload_refused
check "systemctl status shows the daemon's sentence" status_says 'access mode "drop" needs a password'
check "and no Swift debug dump in the journal" no_debug_dump
check "the service is still active, same process" property_is filedrop.service MainPID "$service_pid"
check "and still serves" https_get /config.json
check "the invalid line goes again" in_container 10 sed -i '/^access = drop$/d' $CONF
check "systemctl reload succeeds" in_container 30 systemctl reload filedrop.service

# S2. filedrop reload: root, a member of the group filedrop, and someone else.
check "users fdmember (in group filedrop) and fdother" in_container 30 sh -c \
    'useradd --system --no-create-home -G filedrop fdmember && useradd --system --no-create-home fdother'
root_reload=$(in_container 30 filedrop reload 2>&1 || true)
check_equal "filedrop reload as root prints the outcome" "configuration reloaded" "$root_reload"
member_reload() {
    local out
    out=$(in_container 30 setpriv --reuid=fdmember --regid=fdmember --init-groups filedrop reload 2>&1) || { echo "$out"; return 1; }
    [ "$out" = "configuration reloaded" ] || { echo "$out"; return 1; }
}
check "filedrop reload as a member of group filedrop" member_reload
other_refused() {
    local out
    if out=$(in_container 30 setpriv --reuid=fdother --regid=fdother --init-groups filedrop reload 2>&1); then
        echo "accepted: $out"; return 1
    fi
    [[ "$out" == *"Permission denied"* ]] || { echo "$out"; return 1; }
}
check "filedrop reload as another user is refused (Permission denied)" other_refused

# S3. 50 clients, each a new connection to /ca.crt every 20 ms (curl --rate) for 10 s, while
#     COMMAND runs: every request must be answered; a refusal (curl exit 7), a reset (56) or
#     an empty reply (52) is a connection dropped.
cat >"$MACHINE/root/poll.sh" <<'EOF'
#!/bin/sh
# poll.sh ID: 500 requests to the plain port's /ca.crt, one connection each, 20 ms apart;
# one line per request, "HTTP-CODE CURL-EXIT", in /root/poll.ID.
urls=""
for _ in $(seq 1 500); do urls="$urls http://127.0.0.1:8080/ca.crt"; done
exec curl -s --rate 50/s --max-time 5 -H 'Connection: close' -w '%{stderr}%{http_code} %{exitcode}\n' $urls >/dev/null 2>"/root/poll.$1"
EOF
# under_load DESCRIPTION COMMAND: runs COMMAND (a shell command line) 2 s into the polling.
under_load() {
    local description=$1 command=$2 outcomes dropped total
    in_container 150 sh -c "rm -f /root/poll.[0-9]* /root/load-command.*; chmod +x /root/poll.sh
        for i in \$(seq 1 50); do /root/poll.sh \$i & done
        sleep 2; started=\$(date +%s%N); $command >/root/load-command.out 2>&1; echo \$? > /root/load-command.status
        echo \$(( (\$(date +%s%N) - started) / 1000000 )) > /root/load-command.ms; wait" || true
    log "$description: the command took $(in_container 10 cat /root/load-command.ms 2>/dev/null || echo '?') ms"
    check_equal "$description: the command succeeded" 0 "$(in_container 10 cat /root/load-command.status 2>/dev/null || true)"
    outcomes=$(in_container 10 sh -c 'cat /root/poll.[0-9]*' | sort | uniq -c | sort -rn)
    total=$(awk '{ n += $1 } END { print n + 0 }' <<<"$outcomes")
    dropped=$(awk '$3 != 0 { n += $1 } END { print n + 0 }' <<<"$outcomes")
    log "$description: $total requests; outcomes (count, HTTP code, curl exit):"
    sed 's/^/       /' <<<"$outcomes"
    if [ "$total" = 25000 ] && [ "$dropped" = 0 ]; then pass "$description: none of $total requests refused, reset or unanswered"
    else fail "$description: every request should be answered" "$dropped of $total failed"; fi
    check_equal "$description: every answer is 200" "$total" "$(awk '$2 == 200 && $3 == 0 { n += $1 } END { print n + 0 }' <<<"$outcomes")"
}
before=$(property filedrop.service MainPID || true)
under_load "systemctl restart under load" "systemctl restart filedrop.service"
after=$(property filedrop.service MainPID || true)
if [ -n "$after" ] && [ "$after" != 0 ] && [ "$after" != "$before" ]; then pass "the restart ran a new process ($before -> $after)"
else fail "systemctl restart should have started a new process" "$before -> $after"; fi
before=$after
under_load "dpkg -i (upgrade) under load" "dpkg -i /root/filedrop.deb"
after=$(property filedrop.service MainPID || true)
if [ -n "$after" ] && [ "$after" != 0 ] && [ "$after" != "$before" ]; then pass "the upgrade restarted the service ($before -> $after)"
else fail "the upgrade should have restarted the service" "$before -> $after"; fi
check "the upgrade kept both sockets active" sockets_active

# S4. An invalid configuration at start: the unit fails once, with the sentence, within 5 s
#     (no restart loop); fixed, it starts again.
check "access = bogus goes into $CONF" in_container 10 sh -c "echo 'access = bogus' >> $CONF"
in_container 60 systemctl restart filedrop.service >/dev/null 2>&1 || true
check "the unit is failed within 5 s of the restart" wait_until 5 unit_is filedrop.service failed
sleep 3
check "and stays failed: no automatic restarts (NRestarts=0)" property_is filedrop.service NRestarts 0
check "still failed 3 s later" unit_is filedrop.service failed
check "the exit status is 2" property_is filedrop.service ExecMainStatus 2
check "systemctl status shows the sentence" status_says 'invalid value "bogus" for access'
check "fixed, the service starts again" in_container 60 sh -c \
    "sed -i '/^access = bogus\$/d' $CONF && systemctl reset-failed filedrop.service && systemctl start filedrop.service"
check "and serves" wait_until 10 https_get /config.json
