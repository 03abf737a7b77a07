#!/usr/bin/env bash
# Build Asterisk 22.10.1 (chan_pjsip, bundled pjproject 2.17, ARI, chan_rtp) from the vendored sources into a
# prefix outside the repository, for the real-PBX tests and for a reader following README by hand.
#
#   scripts/asterisk-build.sh [PREFIX]        (default: $AI_OPERATOR_ASTERISK_PREFIX or /opt/ai-operator-asterisk)
#   scripts/asterisk-build.sh --sources       prints where the vendored sources are looked for, and exits
#
# Idempotent: when PREFIX already holds this version (PREFIX/.ai-operator-build says so and sbin/asterisk
# exists), it returns at once. Sources are verified by sha256 before anything is unpacked. Build
# dependencies come from apt, only the missing ones, never upgrading what the host has. Sound downloads are
# off (the registries only are reachable); English prompts come from Debian's asterisk-core-sounds-en-gsm.
set -euo pipefail

VERSION=22.10.1
PJ_VERSION=2.17
AST_SHA256=aa64bbbd413aed11e176bfdb323899b3bcbc7ce037702e2503ca10a397ca8a3f
PJ_SHA256=04b2eb1f0f01aa0ad1945b167171843448a51aa6b7c3e806496d434f13a112b7

here=$(cd "$(dirname "$0")/.." && pwd)
PREFIX=${1:-${AI_OPERATOR_ASTERISK_PREFIX:-/opt/ai-operator-asterisk}}
VENDOR=${AI_OPERATOR_ASTERISK_SOURCES:-$here/../shared/vendor/asterisk}
STAMP="$PREFIX/.ai-operator-build"
if [ "${1:-}" = "--sources" ]; then
    echo "$VENDOR"
    exit 0
fi
JOBS=${JOBS:-$(nproc)}

if [ -x "$PREFIX/sbin/asterisk" ] && [ -f "$STAMP" ] && grep -qx "asterisk=$VERSION" "$STAMP"; then
    echo "asterisk-build: $PREFIX already holds Asterisk $VERSION"
    exit 0
fi

ast_tar="$VENDOR/asterisk-$VERSION.tar.xz"
pj_tar="$VENDOR/pjproject-$PJ_VERSION.tar.bz2"
for f in "$ast_tar" "$pj_tar"; do
    [ -f "$f" ] || { echo "asterisk-build: missing source $f (see ../shared/vendor/asterisk/SOURCE.md)" >&2; exit 2; }
done
check_sha() {
    local got
    got=$(sha256sum "$1" | cut -d' ' -f1)
    if [ "$got" != "$2" ]; then
        echo "asterisk-build: $1: sha256 $got, expected $2" >&2
        exit 2
    fi
}
check_sha "$ast_tar" "$AST_SHA256"
check_sha "$pj_tar" "$PJ_SHA256"

# Build dependencies (Debian package -> a file that proves it is installed).
# libcurl4-openssl-dev and libsrtp2-dev are left out on purpose: the -dev package pins the runtime library's
# exact version, so installing it upgrades the host's libcurl4; ARI, chan_pjsip and chan_rtp need neither.
deps=(build-essential libedit-dev libjansson-dev libxml2-dev libsqlite3-dev uuid-dev libssl-dev
      pkg-config bzip2 patch xz-utils asterisk-core-sounds-en-gsm)
missing=()
for p in "${deps[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "asterisk-build: installing missing packages: ${missing[*]}"
    sudo_=""
    [ "$(id -u)" = 0 ] || sudo_=sudo
    $sudo_ apt-get update -qq
    $sudo_ env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-upgrade "${missing[@]}"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ai-operator-asterisk-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
cache="$work/cache"
mkdir -p "$cache"
cp "$pj_tar" "$cache/"
tar -C "$work" -xJf "$ast_tar"
cd "$work/asterisk-$VERSION"

echo "asterisk-build: configure (prefix $PREFIX)"
./configure --prefix="$PREFIX" --with-pjproject-bundled --without-libjwt --without-libcurl --without-srtp \
    --with-download-cache="$cache" --with-externals-cache="$cache" \
    --without-dahdi --without-pri --without-ss7 --without-gtk2 --without-radius \
    >"$work/configure.log" 2>&1 || { tail -n 40 "$work/configure.log" >&2; exit 1; }

make menuselect.makeopts >"$work/menuselect.log" 2>&1
menuselect/menuselect \
    --disable-category MENUSELECT_CORE_SOUNDS \
    --disable-category MENUSELECT_MOH \
    --disable-category MENUSELECT_EXTRA_SOUNDS \
    --disable BUILD_NATIVE \
    menuselect.makeopts

echo "asterisk-build: make -j$JOBS (about 15 minutes on two cores)"
make -j"$JOBS" >"$work/make.log" 2>&1 || { tail -n 60 "$work/make.log" >&2; exit 1; }
mkdir -p "$PREFIX"
make install >"$work/install.log" 2>&1 || { tail -n 40 "$work/install.log" >&2; exit 1; }

# The English prompts the samples use (core sounds from Debian), linked into the prefix's sounds folder.
if [ -d /usr/share/asterisk/sounds/en_US_f_Allison ]; then
    mkdir -p "$PREFIX/var/lib/asterisk/sounds"
    ln -sfn /usr/share/asterisk/sounds/en_US_f_Allison "$PREFIX/var/lib/asterisk/sounds/en"
fi
for m in chan_pjsip res_ari res_stasis app_stasis chan_rtp codec_ulaw res_http_websocket; do
    [ -f "$PREFIX/lib/asterisk/modules/$m.so" ] || { echo "asterisk-build: module $m.so was not built" >&2; exit 1; }
done
printf 'asterisk=%s\npjproject=%s\n' "$VERSION" "$PJ_VERSION" >"$STAMP"
echo "asterisk-build: Asterisk $VERSION installed in $PREFIX"
