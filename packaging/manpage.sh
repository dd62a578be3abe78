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
.br
.B filedrop send
.IR FILE ...
.RB [ \-\-to
.IR URL ]
.br
.B filedrop get
.I NAME
.RB [ \-\-from
.IR URL ]
.RB [ \-o
.IR PATH ]
.br
.B filedrop ls
.RI [ DIR ]
.RB [ \-\-from
.IR URL ]
.SH DESCRIPTION
People on the same network open the page filedrop serves, or run
.BR "curl \\-F file=@NAME http://HOST:8080/upload" ,
and their files land atomically in the save directory, from where they can be
downloaded again under
.BR /files/ .
With HTTPS on
.RB ( "tls = auto" ,
the package's setting) the plain port takes no uploads: send to
.B https://HOST:8443
instead, after installing filedrop's CA as
.B http://HOST:8080/trust
explains (curl: \fB\-\-cacert\fR with the CA from \fB/ca.crt\fR, made PEM).
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
.BI "send " FILE ...
Upload files to a filedrop server:
.B \-\-to
.I URL
(default
.BR $FILEDROP_URL ,
else http://127.0.0.1:8080),
.B \-\-as
.IR NAME ,
.B \-\-method automatic\fR|\fBmultipart\fR|\fBput\fR|\fBtus\fR,
.BR \-\-quiet .
Files of 8 MiB and more go up resumably: sending an interrupted file again goes on where it stopped.
.B \-\-watch
.I DIR
sends each file that appears in the folder, once, and keeps running
.RB ( \-\-after\-send " keep|delete|move:DIR, " \-\-settle " 2s)."
A server with HTTPS on takes uploads over https:// only.
.TP
.BI "get " NAME
Download a file
.RB ( \-\-from
.IR URL ,
.B \-o
.IR PATH );
an interrupted download resumes.
.TP
.BR ls " [\fIDIR\fR]"
List a folder of the server
.RB ( \-\-from
.IR URL ).
.PP
For https:// URLs the certificate is always verified: the system's certificates, the servers in
.IR ~/.config/filedrop/known_servers ,
.B \-\-ca
.I FILE
or
.B \-\-fingerprint
.IR SHA256 ;
an unknown server is shown and asked about on a terminal.
A password comes from
.B $FILEDROP_PASSWORD
or is asked for. Exit codes: 0 done, 1 transfer failed, 2 usage, 3 refused by the server or
its certificate not trusted, 4 password missing or wrong.
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
.BR StateDirectory= ),
readable by the group
.B filedrop
.RB ( save\-mode ):
.B usermod \-aG filedrop
.I USER
lets a person read uploads without sudo.
.TP
.I /var/lib/filedrop\-tls
What
.B tls = auto
makes for the packaged service (its second
.BR StateDirectory= ):
the CA key (mode 0600, never served), the CA certificate and the current server certificate.
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
