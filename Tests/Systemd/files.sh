# Tests/Systemd/files.sh: sourced by run.sh once an upload over HTTPS has landed (its
# helpers, $CA, $SAVE_DIR and $TLS_DIR are set). Who may read what the service saves, and
# what a first visit over plain HTTP shows:
#
# - the save directory is 2750 and the service's files 0640, group filedrop
#   (StateDirectoryMode=2750, UMask=0027, save-mode = group): a person added to the group
#   with `usermod -aG filedrop` reads uploads, folders made by uploads included, without
#   sudo; someone outside the group reads nothing;
# - the CA key's directory stays the service's alone (0700) although StateDirectoryMode=
#   opens both state directories to the group;
# - a browser (Accept: text/html) opening the plain port gets the trust page with the CA's
#   fingerprint and a link on to HTTPS; curl still gets the 308;
# - the daemon starts without libdispatch's "Failed to set thread priority" in the journal.

# A person at the machine: a member of filedrop, not root; and one who is not.
check "a user alice in the group filedrop (usermod -aG), and bob outside it" in_container 20 sh -c '
    useradd --create-home alice && useradd --create-home bob && usermod -aG filedrop alice'
as_user() { local who=$1; shift; in_container 15 runuser -u "$who" -- "$@"; }

check_equal "$SAVE_DIR is 2750 filedrop:filedrop (set-group-ID)" "2750 filedrop filedrop" \
    "$(in_container 10 stat -c '%a %U %G' $SAVE_DIR)"
check_equal "$TLS_DIR stays 0700 (the CA key's)" "700" "$(in_container 10 stat -c '%a' $TLS_DIR)"
check "a file goes up into a new folder over HTTPS (PUT /files/for-alice/note.txt)" in_container 20 sh -c \
    "echo 'read me without sudo' > /root/note.txt &&
     curl -fsS --max-time 15 --cacert $CA -T /root/note.txt https://127.0.0.1:8443/files/for-alice/note.txt -o /dev/null"
check_equal "the new folder is 2750, group filedrop (inherited set-group-ID)" "2750 filedrop" \
    "$(in_container 10 stat -c '%a %G' $SAVE_DIR/for-alice)"
check_equal "the file in it is 0640, group filedrop" "640 filedrop" \
    "$(in_container 10 stat -c '%a %G' $SAVE_DIR/for-alice/note.txt)"
alice_reads() { [ "$(as_user alice cat $SAVE_DIR/for-alice/note.txt)" = "read me without sudo" ]; }
check "alice (group filedrop, not root) reads the uploaded file" alice_reads
check "alice reads the first upload too ($SAVE_DIR/os-release)" as_user alice cmp /etc/os-release $SAVE_DIR/os-release
check "alice lists the save directory" as_user alice ls $SAVE_DIR/for-alice
cannot_read() { ! as_user "$1" cat "$2" >/dev/null 2>&1; }
check "bob (not in the group) cannot read it" cannot_read bob $SAVE_DIR/os-release
check "alice cannot read the CA key" cannot_read alice $TLS_DIR/ca.key

# The first visit over plain HTTP.
first_visit() {
    local page
    page=$(in_container 15 curl -fsS --max-time 10 -H 'Accept: text/html' http://127.0.0.1:8080/) || return 1
    grep -F "$(fingerprint_of "$TLS_DIR/ca.crt")" <<<"$page" >/dev/null || { echo "no fingerprint in the page"; return 1; }
    grep -F 'id="continue" class="button primary" href="https://127.0.0.1:8443/"' <<<"$page" >/dev/null ||
        { echo "no link on to HTTPS"; return 1; }
}
check "a browser on plain http://127.0.0.1:8080/ gets the trust page: fingerprint, link to HTTPS" first_visit
check "the plain port still serves /first-visit.js (before any trust)" \
    in_container 15 curl -fsS --max-time 10 -o /dev/null http://127.0.0.1:8080/first-visit.js

no_priority_warning() {
    ! in_container 10 journalctl --no-pager -o cat -u filedrop.service | grep -F "Failed to set thread priority"
}
check "no libdispatch \"Failed to set thread priority\" in the service's journal" no_priority_warning
