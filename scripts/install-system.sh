#!/usr/bin/env bash
# Install ai-operator as a system service:
#   /opt/ai-operator/src   a copy of this source tree's package files (README, etc/asterisk samples): in a git
#                          checkout the tracked files only, never a demo's database or a local env file
#   /opt/ai-operator/venv  its own virtualenv with ai-operator installed (pip install <src>, pinned by constraints.txt)
#   /etc/ai-operator/ai-operator.env   from etc/ai-operator.env.example, never overwritten, 0640 root:ai-operator
#   /etc/ai-operator/loads/            the sample freight loads (ROUTE_FREIGHT_LOADS_DIR), existing files never overwritten
#   /etc/systemd/system/ai-operator.service    one daemon per host
#   /etc/systemd/system/ai-operator@.service   the same unit as a template: several daemons on one Asterisk node,
#                                              ai-operator@N reads /etc/ai-operator/N.env, STATE_DIR /var/lib/ai-operator/N
#   the `ai-operator` system user, /var/lib/ai-operator (STATE_DIR)
#   with --instances K: /etc/ai-operator/1.env .. K.env (never overwritten), each its own ARI_APP, RTP range,
#   METRICS_PORT and STATE_DIR, instead of ai-operator.env (see README "Scaling out")
#
# Usage: sudo scripts/install-system.sh [--no-venv] [--pip-args "ARGS"] [--instances K]
# Overrides (environment): DESTDIR (stage into a root; skips useradd, chown and systemctl), PREFIX
# (/opt/ai-operator), SYSCONFDIR (/etc/ai-operator), UNITDIR (/etc/systemd/system), STATEDIR
# (/var/lib/ai-operator), SERVICE_USER (ai-operator), PYTHON (python3), PIP_ARGS (extra pip install args).
set -euo pipefail

SRC_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
DESTDIR="${DESTDIR:-}"
PREFIX="${PREFIX:-/opt/ai-operator}"
SYSCONFDIR="${SYSCONFDIR:-/etc/ai-operator}"
UNITDIR="${UNITDIR:-/etc/systemd/system}"
STATEDIR="${STATEDIR:-/var/lib/ai-operator}"
SERVICE_USER="${SERVICE_USER:-ai-operator}"
PYTHON="${PYTHON:-python3}"
PIP_ARGS="${PIP_ARGS:-}"
WITH_VENV=1
INSTANCES=0
MAX_INSTANCES=16

die() { echo "install-system: $*" >&2; exit 1; }
say() { echo "install-system: $*"; }

while [ $# -gt 0 ]; do
    case "$1" in
        --no-venv) WITH_VENV=0 ;;
        --pip-args) [ $# -ge 2 ] || die "--pip-args needs a value"; PIP_ARGS="$2"; shift ;;
        --instances) [ $# -ge 2 ] || die "--instances needs a value"; INSTANCES="$2"; shift ;;
        -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument: $1 (see --help)" ;;
    esac
    shift
done

for var in PREFIX SYSCONFDIR UNITDIR STATEDIR; do
    case "${!var}" in /*) ;; *) die "$var must be an absolute path, got '${!var}'" ;; esac
done
case "$INSTANCES" in
    ''|*[!0-9]*) die "--instances must be a whole number from 1 to $MAX_INSTANCES, got '$INSTANCES'" ;;
esac
if [ "$INSTANCES" -gt "$MAX_INSTANCES" ]; then
    die "--instances must be a whole number from 1 to $MAX_INSTANCES, got '$INSTANCES'"
fi
ENV_EXAMPLE="$SRC_DIR/etc/ai-operator.env.example"
UNIT_SRC="$SRC_DIR/systemd/ai-operator.service"
[ -r "$ENV_EXAMPLE" ] || die "missing $ENV_EXAMPLE"
[ -r "$UNIT_SRC" ] || die "missing $UNIT_SRC"
[ -r "$SRC_DIR/constraints.txt" ] || die "missing $SRC_DIR/constraints.txt"

if [ -z "$DESTDIR" ]; then
    [ "$(id -u)" = 0 ] || die "run as root (sudo), or set DESTDIR to stage into a directory"
    REAL=1
else
    case "$DESTDIR" in /*) ;; *) die "DESTDIR must be an absolute path, got '$DESTDIR'" ;; esac
    REAL=0
fi

ROOT_PREFIX="$DESTDIR$PREFIX"
ROOT_SYSCONF="$DESTDIR$SYSCONFDIR"
ROOT_UNITDIR="$DESTDIR$UNITDIR"
ROOT_STATE="$DESTDIR$STATEDIR"
ENV_FILE="$SYSCONFDIR/ai-operator.env"

# 1. the service user (no shell, no home). It also runs the embedded PostgreSQL: no other user is ever created,
#    and a root-run `ai-operator` starts that server as the owner of STATE_DIR, i.e. this user.
if [ "$REAL" = 1 ]; then
    if ! getent group "$SERVICE_USER" >/dev/null; then
        groupadd --system "$SERVICE_USER"
    fi
    if ! id -u "$SERVICE_USER" >/dev/null 2>&1; then
        useradd --system --gid "$SERVICE_USER" --home-dir "$STATEDIR" --no-create-home \
            --shell /usr/sbin/nologin --comment "ai-operator daemon" "$SERVICE_USER"
        say "created system user $SERVICE_USER"
    fi
fi

# 2. the source copy and the venv. Only what the package contains: in a git checkout the tracked files (as they
#    are in the work tree), never what else lies there (a demo's database with call records, local env files,
#    reports); outside git (an unpacked release) the tree without state, env files, caches and build output.
install -d -m 0755 "$ROOT_PREFIX" "$ROOT_PREFIX/src"
git_in_src() { git -c safe.directory="$SRC_DIR" -C "$SRC_DIR" "$@"; }
if command -v git >/dev/null && [ "$(git_in_src rev-parse --show-toplevel 2>/dev/null)" = "$SRC_DIR" ]; then
    git_in_src ls-files -z --cached \
        | while IFS= read -r -d '' name; do [ -f "$SRC_DIR/$name" ] && printf '%s\0' "$name"; done \
        | tar -C "$SRC_DIR" --null --no-recursion -T - -cf - \
        | tar -C "$ROOT_PREFIX/src" -xf -
    say "copied the $(git_in_src ls-files --cached | wc -l | tr -d ' ') tracked files of $SRC_DIR (git ls-files) into $PREFIX/src"
else
    tar -C "$SRC_DIR" --exclude=./.venv --exclude=./.git --exclude=state --exclude='__pycache__' \
        --exclude=./.pytest_cache --exclude=./.ruff_cache --exclude=./build --exclude='*.egg-info' \
        --exclude=./benchmarks/reports --exclude='*.env' --exclude='.env*' --exclude='*.wav' -cf - . \
        | tar -C "$ROOT_PREFIX/src" -xf -
    say "copied $SRC_DIR (not a git checkout: without state, env files, WAVs, caches, build output) into $PREFIX/src"
fi
if [ "$WITH_VENV" = 1 ]; then
    "$PYTHON" -m venv "$ROOT_PREFIX/venv"
    # shellcheck disable=SC2086  # PIP_ARGS is a list of words on purpose
    # constraints.txt: the versions the tests passed with (see `make lock`)
    "$ROOT_PREFIX/venv/bin/pip" install --quiet --disable-pip-version-check -c "$ROOT_PREFIX/src/constraints.txt" \
        $PIP_ARGS "$ROOT_PREFIX/src"
    [ -x "$ROOT_PREFIX/venv/bin/ai-operator" ] || die "pip did not install $ROOT_PREFIX/venv/bin/ai-operator"
    say "installed $("$ROOT_PREFIX/venv/bin/python" -c 'import importlib.metadata as m; print("ai-operator", m.version("ai-operator"))') into $PREFIX/venv"
else
    say "skipped the venv (--no-venv)"
fi

# 3. the env file(s): never overwrite the admin's
install -d -m 0750 "$ROOT_SYSCONF"
if [ "$REAL" = 1 ]; then chown "root:$SERVICE_USER" "$ROOT_SYSCONF"; fi
example_value() { sed -n "s/^$1=//p" "$ENV_EXAMPLE" | tail -n 1; }
# write_env TARGET SEDARGS...: the example (through sed) as TARGET, 0640 root:SERVICE_USER, unless TARGET exists
write_env() {
    local target="$1"; shift
    if [ -e "$ROOT_SYSCONF/$target" ]; then
        say "kept existing $SYSCONFDIR/$target (new keys: compare with $PREFIX/src/etc/ai-operator.env.example)"
        return
    fi
    sed "$@" "$ENV_EXAMPLE" > "$ROOT_SYSCONF/$target.tmp"
    chmod 0640 "$ROOT_SYSCONF/$target.tmp"
    if [ "$REAL" = 1 ]; then chown "root:$SERVICE_USER" "$ROOT_SYSCONF/$target.tmp"; fi
    mv -f "$ROOT_SYSCONF/$target.tmp" "$ROOT_SYSCONF/$target"
    say "wrote $SYSCONFDIR/$target from the example"
}
if [ "$INSTANCES" -eq 0 ]; then
    write_env ai-operator.env -e ''
else
    # Instance N: ARI app ai-operator-N, the example's RTP range shifted by N-1 range widths, METRICS_PORT + N-1,
    # STATE_DIR $STATEDIR/N (the template's StateDirectory); what must differ between daemons on one host.
    rtp_min="$(example_value RTP_PORT_MIN)"; rtp_max="$(example_value RTP_PORT_MAX)"
    metrics="$(example_value METRICS_PORT)"; app="$(example_value ARI_APP)"
    width=$((rtp_max - rtp_min + 1))
    [ $((rtp_min + INSTANCES * width - 1)) -le 65535 ] || die "$INSTANCES RTP ranges of $width ports from $rtp_min pass 65535"
    for i in $(seq 1 "$INSTANCES"); do
        write_env "$i.env" \
            -e "s#^ARI_APP=.*#ARI_APP=$app-$i#" \
            -e "s#^RTP_PORT_MIN=.*#RTP_PORT_MIN=$((rtp_min + (i - 1) * width))#" \
            -e "s#^RTP_PORT_MAX=.*#RTP_PORT_MAX=$((rtp_max + (i - 1) * width))#" \
            -e "s#^METRICS_PORT=.*#METRICS_PORT=$((metrics + i - 1))#" \
            -e "s#^STATE_DIR=.*#STATE_DIR=$STATEDIR/$i#"
    done
fi

# 3b. the freight loads (ROUTE_FREIGHT_LOADS_DIR=loads, next to the env file): the sample route's load must exist, or `run`
# refuses to start; an admin's edited or added loads are kept
install -d -m 0750 "$ROOT_SYSCONF/loads"
if [ "$REAL" = 1 ]; then chown "root:$SERVICE_USER" "$ROOT_SYSCONF/loads"; fi
for load in "$SRC_DIR"/etc/loads/*.json; do
    [ -e "$load" ] || continue
    target="$ROOT_SYSCONF/loads/$(basename "$load")"
    if [ -e "$target" ]; then
        say "kept existing $SYSCONFDIR/loads/$(basename "$load")"
    else
        install -m 0640 "$load" "$target"
        if [ "$REAL" = 1 ]; then chown "root:$SERVICE_USER" "$target"; fi
    fi
done
say "freight loads in $SYSCONFDIR/loads"

# 4. the state dir (systemd's StateDirectory= also creates it)
install -d -m 0750 "$ROOT_STATE"
if [ "$REAL" = 1 ]; then chown "$SERVICE_USER:$SERVICE_USER" "$ROOT_STATE"; fi
for i in $(seq 1 "$INSTANCES"); do
    install -d -m 0750 "$ROOT_STATE/$i"
    if [ "$REAL" = 1 ]; then chown "$SERVICE_USER:$SERVICE_USER" "$ROOT_STATE/$i"; fi
done

# 5. the unit, with the paths chosen here, and the template derived from it (one source: systemd/ai-operator.service)
install -d -m 0755 "$ROOT_UNITDIR"
install_unit() {  # install_unit NAME: stdin into UNITDIR/NAME, 0644, atomically
    cat > "$ROOT_UNITDIR/$1.tmp"
    chmod 0644 "$ROOT_UNITDIR/$1.tmp"
    mv -f "$ROOT_UNITDIR/$1.tmp" "$ROOT_UNITDIR/$1"
    say "installed $UNITDIR/$1"
}
sed -e "s#/opt/ai-operator#$PREFIX#g" \
    -e "s#/etc/ai-operator/ai-operator.env#$ENV_FILE#g" \
    -e "s#/var/lib/ai-operator#$STATEDIR#g" \
    -e "s#^User=ai-operator#User=$SERVICE_USER#; s#^Group=ai-operator#Group=$SERVICE_USER#" \
    "$UNIT_SRC" | install_unit ai-operator.service
# The instance's env file, state directory (StateDirectory=, STATE_DIR) and name; everything else as above.
sed -e "1i # Generated by install-system.sh from ai-operator.service (edit that, not this): one daemon per instance." \
    -e "s#^Description=ai-operator - #Description=ai-operator %i - #" \
    -e "s#$ENV_FILE#$SYSCONFDIR/%i.env#g" \
    -e "s#^StateDirectory=\(.*\)#StateDirectory=\1/%i#" \
    -e "s#^\(WorkingDirectory\|ReadWritePaths\)=$STATEDIR\$#\1=$STATEDIR/%i#" \
    -e "s#reset-failed ai-operator)#reset-failed ai-operator@%i)#" \
    "$ROOT_UNITDIR/ai-operator.service" | install_unit ai-operator@.service

if [ "$REAL" = 1 ] && [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
    systemctl daemon-reload
    say "systemctl daemon-reload done"
else
    say "systemd not running here (or DESTDIR set): skipped systemctl daemon-reload"
fi

if [ "$INSTANCES" -eq 0 ]; then
    cat <<NEXT

Next steps:
  1. Edit $ENV_FILE: ARI_USER/ARI_PASSWORD (as in Asterisk's ari.conf), routes, OPENAI_API_KEY if any.
  2. Asterisk: see $PREFIX/src/etc/asterisk/README.md (http.conf, ari.conf, pjsip.conf, extensions.conf).
  3. Check:   sudo -u $SERVICE_USER $PREFIX/venv/bin/ai-operator doctor --env $ENV_FILE
  4. Start:   systemctl enable --now ai-operator && systemctl status ai-operator
  5. Watch:   journalctl -u ai-operator -f ; curl -s 127.0.0.1:9464/healthz
NEXT
else
    last="$SYSCONFDIR/$INSTANCES.env"
    cat <<NEXT

Next steps ($INSTANCES daemons on this Asterisk node, README "Scaling out"):
  1. Edit $SYSCONFDIR/1.env .. $last: ARI_USER/ARI_PASSWORD, routes, and ONE DATABASE_URL shared by all
     (each keeps the ARI_APP, RTP range, METRICS_PORT and STATE_DIR written here).
  2. Asterisk: an ARI user, and the dialplan split over ai-operator-1 .. ai-operator-$INSTANCES (README "Scaling out").
  3. Check:   sudo -u $SERVICE_USER $PREFIX/venv/bin/ai-operator doctor --env $SYSCONFDIR/1.env
              (it also checks the instances' env files in $SYSCONFDIR against each other)
  4. Start:   systemctl enable --now $(seq -f 'ai-operator@%g' -s ' ' 1 "$INSTANCES")
  5. Watch:   journalctl -u 'ai-operator@*' -f
NEXT
    if [ -e "$ROOT_SYSCONF/ai-operator.env" ]; then
        cat <<NEXT
  $ENV_FILE (the single daemon's) is still there: once the instances replace it,
  systemctl disable --now ai-operator and move that file out of $SYSCONFDIR (doctor takes every *.env there
  as a daemon of this host).
NEXT
    fi
fi
