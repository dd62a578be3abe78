#!/bin/bash
# packaging/manpage.sh BINARY VERSION: writes filedrop(1) in troff to standard output.
#
# The options come from `filedrop --help`, which is generated from the key table, so the
# manual page cannot drift from the daemon. The rest says what only a manual page says:
# files, signals, the systemd units.

set -euo pipefail

BINARY=$1
VERSION=$2
DATE=$(date -u -d "@${SOURCE_DATE_EPOCH:-$(date +%s)}" '+%Y-%m-%d')

cat <<EOF
.TH FILEDROP 1 "$DATE" "filedrop $VERSION" "User Commands"
.SH NAME
filedrop \\- file drop for the local network
.SH SYNOPSIS
.B filedrop
.RI [ OPTION ...]
.br
.B filedrop passwd
.br
.B filedrop reload
.RB [ \-\-control\-socket
.IR PATH ]
.SH DESCRIPTION
People on the same network open the page filedrop serves, or run
.BR "curl \\-F file=@NAME http://HOST:8080/upload" ,
and their files land atomically in the save directory, from where they can be
downloaded again under
.BR /files/ .
.PP
Settings come from options, then
.B FILEDROP_*
environment variables, then the configuration file
.RB ( "key = value"
lines), then the defaults shown. Boolean options also take the forms
.BI \\-\\- KEY
and
.BI \\-\\-no\\- KEY\\fR.
A reload applies every key but those marked
.IR "Restart to change" .
.SH OPTIONS
EOF

# "  --flag ARG" starts an option; deeper-indented lines until the next one describe it.
# man-pages(7): backslashes as \e, hyphens as \-, no text line may start with . or '.
"$BINARY" --help | awk '
    function roff(text) {
        gsub(/\\/, "\\e", text); gsub(/-/, "\\-", text)
        if (text ~ /^[.\047]/) text = "\\&" text
        return text
    }
    /^Options:/ { inside = 1; next }
    /^Commands:/ { inside = 0 }
    inside && /^  [^ ]/ { sub(/^  /, ""); print ".TP"; print "\\fB" roff($0) "\\fR"; next }
    inside && /^      Environment:/ { print ".br" }
    inside && /^      / { sub(/^      /, ""); print roff($0); next }
'

cat <<'EOF'
.SH COMMANDS
.TP
.B passwd
Ask for a password and print its hash, for the
.B password\-hash
setting.
.TP
.B reload
Ask the running daemon, through its control socket
.RB ( control\-socket ;
the packaged service's is
.IR /run/filedrop/control.sock ),
to re-read its configuration, and print its answer. Exit status 0 when the
configuration was applied, 1 when it was refused (the daemon keeps the running
one and says why), 3 when the daemon could not be asked. Root, the daemon's
user and members of the socket's group may.
.B systemctl reload filedrop
runs it.
.SH EXIT STATUS
The daemon exits 0 after a clean stop, 2 for an invalid configuration or
command line (the packaged service does not restart then:
.BR RestartPreventExitStatus=2 ),
and 1 for any other failure.
.SH SIGNALS
.TP
.B SIGHUP
Re-read the configuration, as
.B filedrop reload
does; on an error the running configuration stays.
Keys marked
.I "Restart to change"
keep their running values until a restart.
.TP
.BR SIGTERM ", " SIGINT
Stop accepting, let requests in flight finish for
.B drain\-timeout
(20 seconds by default), then exit 0. An upload still arriving then is answered
503 (send it again); systemd's sockets, when the service has them, keep taking
connections for the next start.
.SH FILES
.TP
.I /etc/filedrop/filedrop.conf
The configuration file; every key with its default, commented out.
.TP
.I /var/lib/filedrop
The save directory of the packaged service (its
.BR StateDirectory= ).
.TP
.IR /lib/systemd/system/filedrop.service ", " filedrop.socket ", " filedrop\-https.socket
The service and the sockets it listens on (ports 8080 and 8443), all enabled by
the package: systemd holds the ports while the service restarts.
.I /usr/share/doc/filedrop/README.systemd
says how to switch to it, serve on port 80, or accept only the local network.
.SH SEE ALSO
.BR systemctl (1),
.BR journalctl (1),
.BR systemd.socket (5)
EOF
