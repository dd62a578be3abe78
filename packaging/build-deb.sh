#!/bin/bash
# packaging/build-deb.sh: builds debian-build/filedrop_<version>_<arch>.deb (`make deb`).
#
# It packages the binaries `make build` made (the Makefile's RELEASE_BUILD_FLAGS: the Swift
# standard library linked in, so the package needs no Swift runtime on the target, only the
# C libraries that dpkg-shlibdeps finds; full RELRO). The tree is assembled by hand and
# packed with dpkg-deb: no debhelper, no source package.
#
# Environment: BUILD_DIR (default .build/release), LINTIAN=0 to skip lintian.

set -euo pipefail

REPO_ROOT=$(cd "$(dirname "$0")/.." && pwd)
PACKAGING="$REPO_ROOT/packaging"
BUILD_DIR=${BUILD_DIR:-$REPO_ROOT/.build/release}
OUT_DIR="$REPO_ROOT/debian-build"
STAGE="$OUT_DIR/root"

cd "$REPO_ROOT"
for tool in dpkg-deb dpkg-shlibdeps; do
    command -v "$tool" >/dev/null || { echo "build-deb: $tool is missing (apt-get install dpkg-dev)" >&2; exit 1; }
done

for program in filedrop filedrop-client; do
    [ -x "$BUILD_DIR/$program" ] || { echo "build-deb: $BUILD_DIR/$program is missing (make deb builds it)" >&2; exit 1; }
    # A binary that needs libswiftCore.so would install but never start on a machine without Swift.
    if readelf -d "$BUILD_DIR/$program" | grep -q 'NEEDED.*libswift'; then
        echo "build-deb: $BUILD_DIR/$program links the Swift runtime dynamically; build it with make build" >&2
        exit 1
    fi
done
BINARY="$BUILD_DIR/filedrop"

# "filedrop 0.1.0" -> 0.1.0: the daemon's own version is the package's (a native package).
VERSION=$("$BINARY" --version | awk '{ print $2 }')
ARCH=$(dpkg --print-architecture)
[[ "$VERSION" =~ ^[0-9][0-9A-Za-z.+~-]*$ ]] || { echo "build-deb: unusable version \"$VERSION\"" >&2; exit 1; }

rm -rf "$STAGE"
install -d "$STAGE/DEBIAN" "$STAGE/usr/bin" "$STAGE/usr/libexec/filedrop" \
    "$STAGE/lib/systemd/system" "$STAGE/etc/filedrop" "$STAGE/usr/share/doc/filedrop"

# filedrop-client (send/get/ls, exec'ed by filedrop, so the daemon stays free of Foundation
# and libcurl) is no command of its own: it goes to libexec, where filedrop looks for it.
install -m 0755 "$BUILD_DIR/filedrop" "$STAGE/usr/bin/filedrop"
install -m 0755 "$BUILD_DIR/filedrop-client" "$STAGE/usr/libexec/filedrop/filedrop-client"
for program in usr/bin/filedrop usr/libexec/filedrop/filedrop-client; do
    strip --strip-unneeded --remove-section=.comment --remove-section=.note "$STAGE/$program"
done
install -m 0644 systemd/filedrop.service systemd/filedrop.socket systemd/filedrop-https.socket "$STAGE/lib/systemd/system/"
# The user unit template of `filedrop send --watch` (systemctl --user enable filedrop-send@...).
install -D -m 0644 "$PACKAGING/filedrop-send@.service" "$STAGE/usr/lib/systemd/user/filedrop-send@.service"
install -m 0644 "$PACKAGING/filedrop.conf" "$STAGE/etc/filedrop/filedrop.conf"
# The system user filedrop.service runs as; postinst applies it with systemd-sysusers.
install -D -m 0644 "$PACKAGING/sysusers.d/filedrop.conf" "$STAGE/usr/lib/sysusers.d/filedrop.conf"
install -m 0644 "$PACKAGING/copyright" "$PACKAGING/README.systemd" "$STAGE/usr/share/doc/filedrop/"
gzip -9n -c "$PACKAGING/changelog" >"$STAGE/usr/share/doc/filedrop/changelog.gz"
install -d "$STAGE/usr/share/man/man1"
"$PACKAGING/manpage.sh" "$BINARY" "$VERSION" | gzip -9n >"$STAGE/usr/share/man/man1/filedrop.1.gz"
chmod 0644 "$STAGE/usr/share/doc/filedrop/changelog.gz" "$STAGE/usr/share/man/man1/filedrop.1.gz"

install -m 0755 "$PACKAGING"/maintainer/postinst "$PACKAGING"/maintainer/prerm "$PACKAGING"/maintainer/postrm "$STAGE/DEBIAN/"
echo /etc/filedrop/filedrop.conf >"$STAGE/DEBIAN/conffiles"

# dpkg-shlibdeps reads debian/control for the package list; a one-package stand-in
# in a scratch directory is enough.
SHLIBS_DIR=$(mktemp -d)
trap 'rm -rf "$SHLIBS_DIR"' EXIT
mkdir -p "$SHLIBS_DIR/debian"
printf 'Source: filedrop\n\nPackage: filedrop\nArchitecture: any\n' >"$SHLIBS_DIR/debian/control"
DEPENDS=$(cd "$SHLIBS_DIR" && dpkg-shlibdeps -O "$STAGE/usr/bin/filedrop" "$STAGE/usr/libexec/filedrop/filedrop-client" | sed -n 's/^shlibs:Depends=//p')
[ -n "$DEPENDS" ] || { echo "build-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

INSTALLED_SIZE=$(du -sk --exclude=DEBIAN "$STAGE" | cut -f1)
sed -e "s/@VERSION@/$VERSION/" -e "s/@ARCH@/$ARCH/" -e "s/@DEPENDS@/$DEPENDS/" \
    -e "s/@INSTALLED_SIZE@/$INSTALLED_SIZE/" "$PACKAGING/control.in" >"$STAGE/DEBIAN/control"
(cd "$STAGE" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z | xargs -0 md5sum) >"$STAGE/DEBIAN/md5sums"
chmod 0644 "$STAGE/DEBIAN/control" "$STAGE/DEBIAN/conffiles" "$STAGE/DEBIAN/md5sums"

DEB="$OUT_DIR/filedrop_${VERSION}_${ARCH}.deb"
find "$STAGE" -type d -exec chmod 0755 {} +
dpkg-deb --build --root-owner-group -Zxz "$STAGE" "$DEB"
echo "build-deb: $DEB"
echo "build-deb: Depends: $DEPENDS"

if [ "${LINTIAN:-1}" != 0 ] && command -v lintian >/dev/null; then
    lintian --display-info --pedantic "$DEB" || true
fi
