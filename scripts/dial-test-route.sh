#!/usr/bin/env bash
# Dial the ai-operator test route on a real Asterisk with sipp (Debian package: sip-tester) as the pjsip
# endpoint `test-caller` (etc/asterisk/pjsip.conf), and speak an audio file to the bot.
#
#   scripts/dial-test-route.sh [options] AUDIO
#     -H HOST        Asterisk SIP address (default 127.0.0.1)
#     -P PORT        Asterisk SIP port (default 5070, the sample transport ai-operator-udp)
#     -e EXTEN       extension to dial (default 100 = Stasis(ai-operator,test); 200 = freight)
#     -u USER        SIP auth user (default test-caller)
#     -p PASSWORD    SIP auth password (default $SIP_PASSWORD, else CHANGE-ME-test-caller as in the sample)
#     -l SECONDS     how long to listen after speaking before hanging up (default 20)
#     -m PORT        local RTP port (default 16000)
#     -n             dry run: convert the audio, render the scenario, print the sipp command; do not dial
#
# AUDIO is any file sox reads (WAV, FLAC, ...); it is converted to 8 kHz mono mu-law, as the trunk speaks.
# Example: espeak-ng -v ru -w /tmp/q.wav "Здравствуйте, у меня не работает интернет" && \
#          scripts/dial-test-route.sh -H 127.0.0.1 /tmp/q.wav
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SCENARIO_TEMPLATE="$HERE/sipp/uac-test-route.xml"

HOST=127.0.0.1
PORT=5070
EXTEN=100
AUTH_USER=test-caller
AUTH_PASSWORD="${SIP_PASSWORD:-CHANGE-ME-test-caller}"
LISTEN_S=20
MEDIA_PORT=16000
DRY_RUN=0
WORK_DIR="${WORK_DIR:-}"

die() { echo "dial-test-route: $*" >&2; exit 2; }
usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }

while getopts "H:P:e:u:p:l:m:nh" opt; do
    case "$opt" in
        H) HOST="$OPTARG" ;;
        P) PORT="$OPTARG" ;;
        e) EXTEN="$OPTARG" ;;
        u) AUTH_USER="$OPTARG" ;;
        p) AUTH_PASSWORD="$OPTARG" ;;
        l) LISTEN_S="$OPTARG" ;;
        m) MEDIA_PORT="$OPTARG" ;;
        n) DRY_RUN=1 ;;
        h) usage 0 ;;
        *) usage 2 >&2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || die "expected one AUDIO file argument (see -h)"
AUDIO="$1"

[ -r "$AUDIO" ] || die "audio file not readable: $AUDIO"
[ -r "$SCENARIO_TEMPLATE" ] || die "scenario missing: $SCENARIO_TEMPLATE"
[[ "$PORT" =~ ^[0-9]+$ ]] || die "-P: port must be a number, got '$PORT'"
[[ "$MEDIA_PORT" =~ ^[0-9]+$ ]] || die "-m: RTP port must be a number, got '$MEDIA_PORT'"
[[ "$LISTEN_S" =~ ^[0-9]+$ ]] || die "-l: listen time must be whole seconds, got '$LISTEN_S'"
[[ "$EXTEN" =~ ^[0-9A-Za-z*#+_-]+$ ]] || die "-e: bad extension '$EXTEN'"
command -v sox >/dev/null || die "sox not found (apt-get install sox)"
if [ "$DRY_RUN" = 0 ]; then
    command -v sipp >/dev/null || die "sipp not found (apt-get install sip-tester)"
fi

if [ -z "$WORK_DIR" ]; then
    WORK_DIR="$(mktemp -d -t ai-operator-dial.XXXXXX)"
    trap 'rm -rf "$WORK_DIR"' EXIT
fi
mkdir -p "$WORK_DIR"
CALLER_WAV="$WORK_DIR/caller-ulaw.wav"
SCENARIO="$WORK_DIR/uac-test-route.xml"

# 8 kHz, mono, G.711 mu-law in a WAV container: sipp's rtp_stream skips the WAV header and sends the rest.
sox "$AUDIO" -r 8000 -c 1 -e u-law -b 8 "$CALLER_WAV" || die "sox could not convert $AUDIO"
SPEECH_S="$(soxi -D "$CALLER_WAV" 2>/dev/null || echo 0)"
# Listen starts when the audio starts: add the audio's own length.
LISTEN_MS=$(( (${SPEECH_S%.*} + LISTEN_S) * 1000 ))

sed -e "s#@AUDIO_FILE@#${CALLER_WAV}#g" -e "s#@LISTEN_MS@#${LISTEN_MS}#g" "$SCENARIO_TEMPLATE" > "$SCENARIO"

CMD=(sipp "$HOST:$PORT" -sf "$SCENARIO" -s "$EXTEN" -au "$AUTH_USER" -ap "$AUTH_PASSWORD"
     -m 1 -l 1 -mp "$MEDIA_PORT" -nostdin -trace_err -timeout "$(( LISTEN_MS / 1000 + 30 ))s" -timeout_error)

echo "audio:    $CALLER_WAV (${SPEECH_S}s, 8 kHz mu-law)"
echo "scenario: $SCENARIO"
# The password is masked by position (the word after -ap), never by pattern: a password with glob characters or
# one that prefixes another argument must neither show nor garble the rest.
SHOWN=("${CMD[@]}")
for i in "${!SHOWN[@]}"; do
    if [ "${SHOWN[$i]}" = "-ap" ]; then SHOWN[i+1]='***'; fi
done
printf 'command: '; printf '%q ' "${SHOWN[@]}"; echo
if [ "$DRY_RUN" = 1 ]; then
    exit 0
fi
cd "$WORK_DIR"
"${CMD[@]}"
