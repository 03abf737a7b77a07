"""Doctor checks of the host: env-file permissions, the ARI password not a placeholder, espeak-ng voices, RTP port
range, state directory.

Each function checks one thing for real (reads the file's mode, runs `espeak-ng --voices`, binds sockets,
writes a file) and returns one `CheckResult` whose detail says what to do when it is not OK.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import socket
import stat
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path

from ai_operator.config.schema import declared
from ai_operator.dialogue import CheckResult
from ai_operator.doctor.port_owner import held_by
from ai_operator.storage.state_lock import holder_of

ENV_FILE_MODE_HINT = "chmod 0640 {path} && chown root:ai-operator {path}"
ESPEAK_BINARY = "espeak-ng"
ESPEAK_TIMEOUT_S = 10.0
ESPEAK_APT_PACKAGES = "espeak-ng espeak-ng-data"
RTP_SAMPLE_INNER_PORTS = 3  # ports checked between the first and the last
MIN_FREE_BYTES = 1 << 30  # 1 GiB: the embedded database, spool and TTS cache live in STATE_DIR

# Passwords shipped in samples (etc/ai-operator.env.example, Asterisk's ari.conf.sample): never the real one.
PLACEHOLDER_PASSWORDS = frozenset({"change-me", "changeme", "password", "secret", "asterisk"})
_EMPTY_VALUES = {"", '""', "''"}


def _secret_keys() -> tuple[str, ...]:
    """ARI_PASSWORD, DATABASE_URL, OPENAI_API_KEY (a provider's group declares its own)."""
    return tuple(d.key for d in declared() if d.spec.secret)


def _secrets_in(text: str) -> list[str]:
    found = []
    secret_line = re.compile(r"^\s*(?:export\s+)?(" + "|".join(_secret_keys()) + r")\s*=\s*(.*?)\s*$")
    for line in text.splitlines():
        m = secret_line.match(line)
        if m and m.group(2).split(" #")[0].strip() not in _EMPTY_VALUES:
            found.append(m.group(1))
    return found


def env_file_permissions(path: str | os.PathLike[str]) -> CheckResult:
    """The env file exists, is readable, and is not world-readable (or writable by others) when it holds secrets."""
    name = "env file permissions"
    p = Path(path)
    try:
        st = p.stat()
    except FileNotFoundError:
        return CheckResult(
            name, "FAIL", f"{p} does not exist: copy etc/ai-operator.env.example there (mode 0640)"
        )
    except OSError as exc:
        return CheckResult(name, "FAIL", f"{p}: cannot stat: {exc.strerror}")
    if not stat.S_ISREG(st.st_mode):
        return CheckResult(name, "FAIL", f"{p} is not a regular file")
    mode = stat.S_IMODE(st.st_mode)
    try:
        text = p.read_text(encoding="utf-8", errors="replace")
    except PermissionError:
        return CheckResult(
            name, "FAIL", f"{p} (mode {mode:04o}) is not readable by this user: run as root or as ai-operator"
        )
    except OSError as exc:
        return CheckResult(name, "FAIL", f"{p}: cannot read: {exc.strerror}")
    hint = ENV_FILE_MODE_HINT.format(path=p)
    secrets = _secrets_in(text)
    if mode & (stat.S_IROTH | stat.S_IWOTH):  # it holds (or will hold) the ARI password and API keys
        how = "readable" if mode & stat.S_IROTH else "writable"
        holds = f" and holds {', '.join(secrets)}" if secrets else " (and will hold ARI_PASSWORD)"
        return CheckResult(name, "FAIL", f"{p} (mode {mode:04o}) is {how} by everyone{holds}: {hint}")
    if mode & stat.S_IWGRP:
        return CheckResult(name, "WARN", f"{p} (mode {mode:04o}) is writable by its group: {hint}")
    return CheckResult(name, "OK", f"{p} mode {mode:04o}")


def ari_password_set(password: str) -> CheckResult:
    """ARI_PASSWORD is set and is not a sample's placeholder (the value itself is never shown)."""
    name = "ARI password"
    value = password.strip()
    if not value:
        return CheckResult(name, "FAIL", "ARI_PASSWORD is empty: set it to the password of the user in Asterisk's ari.conf")
    if value.lower() in PLACEHOLDER_PASSWORDS:
        return CheckResult(
            name, "FAIL",
            "ARI_PASSWORD is still a sample placeholder: choose a strong password (e.g. `openssl rand -hex 16`) and "
            "set the same one in Asterisk's ari.conf and in the env file",
        )
    return CheckResult(name, "OK", f"set ({len(value)} characters, not a placeholder)")


def _voice_languages(listing: str) -> set[str]:
    """Language codes from `espeak-ng --voices` (the Language column and the Other Languages column)."""
    langs: set[str] = set()
    for line in listing.splitlines()[1:]:
        cols = line.split()
        if len(cols) < 5:
            continue
        langs.add(cols[1].lower())
        for extra in cols[5:]:
            code = extra.strip("()").split("(")[0].lower()
            if re.fullmatch(r"[a-z]{2,3}(-[a-z0-9-]+)?", code):
                langs.add(code)
    return langs


def espeak_voices(languages: Iterable[str], binary: str = ESPEAK_BINARY) -> CheckResult:
    """espeak-ng is installed and has a voice for each language (a regional voice like `en-us` counts for `en`)."""
    name = "espeak-ng voices"
    wanted = sorted({lang.lower() for lang in languages})
    exe = shutil.which(binary)
    if exe is None:
        return CheckResult(name, "FAIL", f"{binary} not found: apt-get install {ESPEAK_APT_PACKAGES}")
    try:
        proc = subprocess.run(
            [exe, "--voices"], capture_output=True, text=True, timeout=ESPEAK_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return CheckResult(name, "FAIL", f"{exe} --voices failed: {exc}")
    if proc.returncode != 0:
        return CheckResult(
            name, "FAIL", f"{exe} --voices exited {proc.returncode}: {proc.stderr.strip()[:200]}"
        )
    have = _voice_languages(proc.stdout)
    missing = [lang for lang in wanted if not any(h == lang or h.startswith(lang + "-") for h in have)]
    if missing:
        return CheckResult(
            name,
            "FAIL",
            f"no espeak-ng voice for {', '.join(missing)} ({len(have)} voices installed): "
            f"apt-get install {ESPEAK_APT_PACKAGES}, or use TTS_PROVIDER=openai",
        )
    return CheckResult(name, "OK", f"voices for {', '.join(wanted) or 'no language'} present")


def _sample_ports(port_min: int, port_max: int, inner: int = RTP_SAMPLE_INNER_PORTS) -> list[int]:
    span = port_max - port_min
    ports = {port_min, port_max}
    for i in range(1, inner + 1):
        ports.add(port_min + span * i // (inner + 1))
    return sorted(ports)


def rtp_port_range_bindable(
    host: str, port_min: int, port_max: int, max_calls: int | None = None, state_dir: str | os.PathLike[str] | None = None
) -> CheckResult:
    """UDP ports of the RTP range bind on `host`: the first, the last and a few in between. A port the daemon
    holding `state_dir`'s lock has bound itself (for a call in progress) is not a collision."""
    name = "rtp port range"
    if not 0 < port_min <= port_max < 65536:
        return CheckResult(name, "FAIL", f"RTP_PORT_MIN/RTP_PORT_MAX: invalid range {port_min}-{port_max}")
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_DGRAM)
    except socket.gaierror as exc:
        return CheckResult(name, "FAIL", f"RTP_HOST {host!r} does not resolve: {exc.strerror}")
    family, _, _, _, sockaddr = infos[0]
    address = sockaddr[0]
    daemon = holder_of(Path(state_dir)) if state_dir is not None else None
    sockets: list[socket.socket] = []
    ports = _sample_ports(port_min, port_max)
    own: list[int] = []
    try:
        for port in ports:
            s = socket.socket(family, socket.SOCK_DGRAM)
            sockets.append(s)
            try:
                s.bind((address, port))
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE and daemon is not None and held_by(daemon, port):
                    own.append(port)
                    continue
                return CheckResult(name, "FAIL", f"cannot bind UDP {address}:{port}: {_bind_failure(exc, address, daemon)}")
    finally:
        for s in sockets:
            s.close()
    size = port_max - port_min + 1
    detail = (
        f"UDP {address}:{port_min}-{port_max} ({size} ports) bindable; sampled {', '.join(map(str, ports))}"
    )
    if own:
        detail += f" ({', '.join(map(str, own))} held by this host's running daemon, PID {daemon}, for its calls)"
    if max_calls is not None and size < max_calls:
        return CheckResult(name, "WARN", f"{detail}; but MAX_CALLS={max_calls} needs {max_calls} ports")
    return CheckResult(name, "OK", detail)


def _bind_failure(exc: OSError, address: object, daemon: int | None) -> str:
    why = exc.strerror or str(exc)
    if exc.errno == errno.EADDRNOTAVAIL:
        why += f" ({address} is not an address of this machine: check RTP_HOST)"
    elif exc.errno == errno.EADDRINUSE:
        running = f"; not the daemon of this STATE_DIR (PID {daemon})" if daemon is not None else ""
        why += f" (another process uses it{running}: Asterisk's rtp.conf range must not overlap)"
    elif exc.errno == errno.EACCES:
        why += " (ports below 1024 need privileges: choose a higher range)"
    return why


def state_dir_writable(path: str | os.PathLike[str]) -> CheckResult:
    """STATE_DIR exists, is a directory, and a file can be written, synced and removed in it."""
    name = "state dir"
    p = Path(path)
    if not p.exists():
        parent = next((a for a in p.parents if a.exists()), None)
        if parent is not None and parent.is_dir() and os.access(parent, os.W_OK):
            return CheckResult(
                name,
                "WARN",
                f"{p} does not exist yet; the daemon creates it (systemd StateDirectory= does too)",
            )
        return CheckResult(
            name, "FAIL", f"{p} does not exist and cannot be created: mkdir -p {p} && chown ai-operator: {p}"
        )
    if not p.is_dir():
        return CheckResult(name, "FAIL", f"{p} is not a directory (STATE_DIR)")
    try:
        with tempfile.NamedTemporaryFile(dir=p, prefix=".doctor-", delete=True) as f:
            f.write(b"ai-operator doctor write test\n")
            f.flush()
            os.fsync(f.fileno())
    except OSError as exc:
        return CheckResult(name, "FAIL", f"cannot write in {p}: {exc.strerror}: chown -R ai-operator: {p}")
    free = None
    with contextlib.suppress(OSError):
        free = shutil.disk_usage(p).free
    if free is not None and free < MIN_FREE_BYTES:
        return CheckResult(name, "WARN", f"{p} writable but only {free // (1 << 20)} MiB free")
    extra = f", {free // (1 << 30)} GiB free" if free is not None else ""
    return CheckResult(name, "OK", f"{p} writable{extra}")


__all__ = ["ari_password_set", "env_file_permissions", "espeak_voices", "rtp_port_range_bindable", "state_dir_writable"]
