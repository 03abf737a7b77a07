#!/usr/bin/env bash
# Install the Debian packages behind the commands that make, the tests and the scripts use, and nothing else:
#   - only the package of a command that is missing (the command -> package map below): a command that is
#     already there is left alone, whatever its version;
#   - never an upgrade: `apt-get install --no-upgrade --no-install-recommends`, and a package whose installation
#     would still upgrade something installed (apt's simulation says so, e.g. a newer libsystemd0 for systemd)
#     is skipped and named, with the command to install it by hand; the tests that need it are skipped;
#   - what will be installed (the packages and their new dependencies) is printed before anything is done.
#
# Usage: scripts/system-deps.sh [--dry-run]     (as root, or through sudo)
# Environment: DRY_RUN=1 (same as --dry-run: print the plan, change nothing), APT_GET (apt-get).
set -euo pipefail

# command:package
DEPS=(
    "espeak-ng:espeak-ng"           # the offline TTS and the simulated caller's voice
    "sox:sox"                       # audio conversion in scripts/dial-test-route.sh
    "sipp:sip-tester"               # the SIP test call of scripts/dial-test-route.sh
    "systemd-analyze:systemd"       # `systemd-analyze verify` of the shipped unit (tests)
    "kamailio:kamailio"             # the SIP front door of scripts/cluster.sh and tests/cluster (dispatcher)
)
APT_GET="${APT_GET:-apt-get}"
DRY_RUN="${DRY_RUN:-0}"

say() { echo "system-deps: $*"; }

while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run|-n) DRY_RUN=1 ;;
        -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "system-deps: unknown argument: $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done

missing_cmds=()
packages=()
for dep in "${DEPS[@]}"; do
    cmd="${dep%%:*}"
    pkg="${dep#*:}"
    command -v "$cmd" >/dev/null 2>&1 && continue
    missing_cmds+=("$cmd")
    case " ${packages[*]-} " in *" $pkg "*) ;; *) packages+=("$pkg") ;; esac
done
[ "${#packages[@]}" -eq 0 ] && exit 0

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

say "missing command(s): ${missing_cmds[*]}"
if [ "$DRY_RUN" = 1 ]; then
    say "dry run: using the package lists as they are (no apt-get update)"
else
    as_root "$APT_GET" update -qq
fi

export DEBIAN_FRONTEND=noninteractive
install=()
new_deps=()
skipped=()
for pkg in "${packages[@]}"; do
    # "Inst NAME [OLD] (NEW ...)" is an upgrade of an installed package; "Inst NAME (NEW ...)" a new one.
    if ! plan="$("$APT_GET" install -s --no-upgrade --no-install-recommends "$pkg" 2>&1)"; then
        say "skipping $pkg: apt-get cannot install it here: $(echo "$plan" | grep -m1 '^E:' || echo "$plan" | tail -n1)"
        skipped+=("$pkg")
        continue
    fi
    upgrades="$(echo "$plan" | sed -n 's/^Inst \([^ ]*\) \[\([^]]*\)\] (\([^ ]*\).*/\1 \2->\3/p' | paste -sd, - | sed 's/,/, /g')"
    if [ -n "$upgrades" ]; then
        say "skipping $pkg: installing it would upgrade installed packages ($upgrades);"
        say "  to accept that, run: apt-get install $pkg"
        skipped+=("$pkg")
        continue
    fi
    install+=("$pkg")
    while read -r dep; do
        [ -n "$dep" ] && [ "$dep" != "$pkg" ] && new_deps+=("$dep")
    done < <(echo "$plan" | sed -n 's/^Inst \([^ ]*\) (.*/\1/p')
done

if [ "${#install[@]}" -eq 0 ]; then
    say "nothing to install (skipped: ${skipped[*]-none}); the tests that need them are skipped"
    exit 0
fi
say "will install: ${install[*]}${new_deps[*]:+ (new dependencies: ${new_deps[*]})}; nothing installed is upgraded"
if [ "$DRY_RUN" = 1 ]; then
    say "dry run: nothing installed"
    exit 0
fi
as_root env DEBIAN_FRONTEND=noninteractive "$APT_GET" install -y -qq --no-upgrade --no-install-recommends "${install[@]}"
[ "${#skipped[@]}" -eq 0 ] || say "skipped: ${skipped[*]} (see above); the tests that need them are skipped"
