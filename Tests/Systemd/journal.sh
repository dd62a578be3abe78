# Sourced by Tests/Systemd/run.sh (its helpers: check, pass, fail, in_container, wait_until,
# property, unit_is; CA, SAVE_DIR, CONTAINER_PID). Leaves the units as it found them.
#
# The journal under load: journald keeps at most RateLimitBurst= lines per
# RateLimitIntervalSec= of a unit (10,000 per 30 s by default, notice and info counted
# together) and drops the rest at random. 20 s of small GETs over HTTPS while 15 uploads
# arrive: every upload has its line, journald suppresses nothing of filedrop's, and the
# access log's own budget (access-log-rate) says in a summary line what it left out.

section_sockets=$(in_container 10 systemctl is-active filedrop.socket filedrop-https.socket 2>/dev/null | grep -c '^active$' || true)
section_service=$(in_container 10 systemctl is-active filedrop.service 2>/dev/null || true)
check "journal: filedrop.service runs on its own ports" in_container 60 sh -c \
    'systemctl stop filedrop.socket filedrop-https.socket filedrop.service && systemctl start filedrop.service'
check "journal: HTTPS answers on 8443" wait_until 20 https_get /config.json
section_since=$(in_container 10 date +%s)

# Two curls, each GETs on one verified keep-alive connection (URL globbing), cut off at 20 s;
# meanwhile one upload a second. Every load is bounded in time and count.
journal_load() {
    in_container 60 sh -c '
        for n in 1 2; do
            timeout 20 curl -s --cacert "$1" "https://127.0.0.1:8443/config.json?load=$n-[1-1000000]" >/dev/null &
        done
        sleep 2
        for i in $(seq 1 15); do
            curl -fsS --max-time 10 --cacert "$1" -o /dev/null -F "file=@/etc/os-release;filename=journal-load-$i.txt" \
                https://127.0.0.1:8443/upload || echo "upload $i failed"
            sleep 1
        done
        wait' sh "$CA"
}
load_output=$(journal_load 2>&1 || true)
if [[ "$load_output" == *failed* ]]; then fail "journal: 15 uploads during 20 s of GETs" "$load_output"
else pass "journal: 15 uploads during 20 s of GETs"; fi
stored_uploads() { in_container 10 sh -c "ls $SAVE_DIR | grep -c '^journal-load-[0-9]*\\.txt\$'"; }
check_equal "journal: all 15 uploads are stored" 15 "$(stored_uploads || true)"
requests_served=$(in_container 10 journalctl --no-pager -o cat -u filedrop.service --since "@$section_since" |
    sed -n 's/^\([0-9,]*\) requests not logged in the last.*/\1/p' | tr -d , | awk '{ n += $1 } END { print n + 0 }')
log "journal: $requests_served GETs and uploads were counted in summary lines instead of logged one by one"
# The summaries come once per interval (10 s): the last one may still be on its way.
summary_present() {
    in_container 10 journalctl --no-pager -o cat -u filedrop.service --since "@$section_since" \
        MESSAGE_ID=6f7589cf8da24f63ba6d2e4f67a8b697 | grep 'requests not logged in the last' >/dev/null
}
check "journal: a summary line (its own MESSAGE_ID) counts the requests the budget left out" wait_until 15 summary_present
access_fields() {
    in_container 10 journalctl --no-pager -o verbose -u filedrop.service --since "@$section_since" \
        MESSAGE_ID=157b3cc65e9d4919a26447f9e6463562 FILEDROP_STATUS=200 | grep 'FILEDROP_PATH=/config.json?load=' >/dev/null
}
check "journal: access lines keep their structured fields (FILEDROP_PATH, FILEDROP_STATUS)" access_fields
upload_lines() {
    in_container 10 journalctl --no-pager -o cat -u filedrop.service -p notice --since "@$section_since" |
        grep -o 'upload finished: journal-load-[0-9]*\.txt' | sort -u | wc -l
}
check_equal "journal: all 15 uploads have their line, at notice" 15 "$(upload_lines || true)"
suppressed_lines() {
    in_container 10 journalctl --no-pager -o cat --since "@$section_since" | grep 'Suppressed .* messages from filedrop.service' || true
}
suppressed=$(suppressed_lines)
if [ -z "$suppressed" ]; then pass "journal: journald suppressed nothing of filedrop.service"
else fail "journal: journald suppressed nothing of filedrop.service" "$suppressed"; fi

# A figure for people (printed, not asserted): requests per second with the default log
# under this journald against access-log = false, the host's wrk in the container's network
# namespace, plain HTTP on a transient unit of its own (no sandbox, no TLS). Three pairs in
# alternating order: one run on a shared machine swings by a quarter.
if command -v wrk >/dev/null; then
    journal_rate() {
        in_container 30 sh -c 'mkdir -p /root/bench-files && head -c 4096 /dev/urandom > /root/bench-files/small.bin &&
            systemd-run --quiet --unit=filedrop-bench -p Type=notify /usr/bin/filedrop --config "" \
                --listen 127.0.0.1:8091 --tls off --save-dir /root/bench-files --max-connections-per-client 2000 "$@"' sh "$@" >/dev/null &&
        timeout 30 nsenter --target "$CONTAINER_PID" --net wrk -t2 -c64 -d8s http://127.0.0.1:8091/files/small.bin 2>/dev/null |
            sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p'
        in_container 30 sh -c 'systemctl stop filedrop-bench; systemctl reset-failed filedrop-bench' >/dev/null 2>&1 || true
    }
    ratios=""
    for pair in 1 2 3; do
        if [ $((pair % 2)) = 1 ]; then
            rate_on=$(journal_rate || true); rate_off=$(journal_rate --access-log false || true)
        else
            rate_off=$(journal_rate --access-log false || true); rate_on=$(journal_rate || true)
        fi
        [ -n "$rate_on" ] && [ -n "$rate_off" ] || continue
        ratio=$(awk -v a="$rate_on" -v b="$rate_off" 'BEGIN { printf "%.3f", a / b }')
        ratios="$ratios $ratio"
        log "journal: wrk -t2 -c64 -d8s under journald, pair $pair: $rate_on req/s with the default log," \
            "$rate_off with access-log = false ($ratio)"
    done
    [ -z "$ratios" ] || log "journal: default log ÷ access-log = false under journald, median of the pairs:" \
        "$(printf '%s\n' $ratios | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')"
fi

check "journal: the units as they were" in_container 60 sh -c "systemctl stop filedrop.service &&
    if [ '$section_sockets' = 2 ]; then systemctl start filedrop.socket filedrop-https.socket; fi &&
    if [ '$section_service' = active ]; then systemctl start filedrop.service; fi; true"
