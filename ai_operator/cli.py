"""The `ai-operator` command: argument parsing and one small function per sub-command.

Every command takes `--env PATH` (default /etc/ai-operator/ai-operator.env) and `--debug`. Configuration errors
print one line naming the file, line and key, and exit with status 2; any other failure prints one line naming
what failed and exits with status 1. `--debug` prints the traceback before that line.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from ai_operator.config import DEFAULT_ENV_PATH, ConfigError, EnvFileError, Settings, load_settings
from ai_operator.logs import configure_logging, get_logger, redact, register_secret

EXIT_FAILURE = 1
EXIT_CONFIG = 2
SCRIPT_HELP = """\
script format (--script FILE, or lines typed at the prompt; UTF-8 text, blank lines skipped):
  TEXT           one caller utterance, arriving 3 s after the previous line (virtual clock, no real wait)
  +SECONDS TEXT  the utterance arrives SECONDS after the previous one, e.g. `+0.8 тысяч`; a fragment
                 followed within the route's HOLD_S by its continuation is merged into one turn
  [dtmf N]       the caller presses key N (0-9, * or #), e.g. `[dtmf 1]`
  [silence]      the caller says nothing until the idle timeout (the policy re-prompts)
  [not-heard]    the caller spoke but speech-to-text failed
  An event may be timed too: `+10 [silence]`.
"""


def _settings(args: argparse.Namespace, *, quiet: bool = False, background: bool = False) -> Settings:
    from ai_operator.route_binding import bind_routes

    settings = bind_routes(load_settings(args.env))  # each route's policy found, its options checked
    for secret in settings.secrets():
        register_secret(secret)
    level = "warning" if quiet and settings.ops.log_level == "info" else settings.ops.log_level
    configure_logging(level, settings.ops.log_format, background=background)
    log = get_logger("config")
    for warning in settings.warnings:
        log.warning("config_warning", detail=warning)
    return settings


def cmd_call(args: argparse.Namespace) -> int:
    from ai_operator.console import run_console

    settings = _settings(args, quiet=True)
    route = settings.route(args.route)
    if route is None:
        known = ", ".join(sorted(settings.routes)) or "none"
        raise ConfigError(f"ROUTE_{args.route.upper()}_*: no route named {args.route!r} in {settings.source} (known: {known})")
    if not route.policy:
        raise ConfigError(f"ROUTE_{route.name.upper()}_POLICY: route {route.name} names no policy")
    from ai_operator.option_args import call_options, deprecated_load

    route, files = call_options(route, [*deprecated_load(args.load), *(args.option or []), *(args.arg or [])])
    script = None
    if args.script:
        try:
            script = Path(args.script).read_text(encoding="utf-8-sig").splitlines()  # a BOM is not a word
        except UnicodeDecodeError as exc:
            raise ConfigError(
                f"--script {args.script}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}); "
                "expected one caller line per line"
            ) from None
        except OSError as exc:
            raise ConfigError(f"--script {args.script}: {exc.strerror}") from None
    return asyncio.run(
        run_console(settings, route, script=script, as_json=args.json, use_knowledge=not args.no_knowledge, files=files)
    )


def cmd_self_test(args: argparse.Namespace) -> int:
    from ai_operator.selftest import policies_under_test, print_reports, run_self_test

    settings = _settings(args, quiet=True)
    reports = run_self_test(policies_under_test(settings))
    print_reports(reports, sys.stdout, as_json=args.json)
    return 0 if all(r.result.passed for r in reports) else 1


def cmd_doctor(args: argparse.Namespace) -> int:
    from ai_operator.doctor.runner import GROUPS, collect, print_results

    configure_logging("error", "auto")
    chosen = [g for g in GROUPS if getattr(args, f"check_{g}")]
    results = asyncio.run(collect(args.env, chosen or list(GROUPS)))
    return print_results(results, sys.stdout, as_json=args.json)


def cmd_run(args: argparse.Namespace) -> int:
    from ai_operator.daemon.app import run_daemon

    settings = _settings(args, background=True)  # the daemon's loop never waits on a log write
    return asyncio.run(run_daemon(settings, env_path=args.env))


def cmd_demo(args: argparse.Namespace) -> int:
    from ai_operator.sim.demo import run_demo

    settings = _settings(args, quiet=True)
    return asyncio.run(run_demo(settings, route_name=args.route, state_dir=args.state_dir, out=sys.stdout))


def cmd_dial(args: argparse.Namespace) -> int:
    from ai_operator.daemon.dial import dial
    from ai_operator.option_args import deprecated_load

    settings = _settings(args)
    given = [*deprecated_load(args.load), *(args.arg or [])]
    return asyncio.run(dial(settings, route_name=args.route, endpoint=args.endpoint, args=given, caller_id=args.caller_id))


def cmd_kb(args: argparse.Namespace) -> int:
    from ai_operator.kb import commands

    settings = _settings(args, quiet=True)
    if args.kb_command == "ingest":
        return asyncio.run(commands.kb_ingest(settings, args.file, prune=args.prune, force=args.force, reembed=args.reembed,
                                                  out=sys.stdout, route=args.route))
    if args.kb_command == "search":
        return asyncio.run(
            commands.kb_search(settings, args.query, args.language, args.scope, as_json=args.json, out=sys.stdout,
                               fallback=args.fallback, route=args.route)
        )
    if args.kb_command == "calibrate":
        return asyncio.run(commands.kb_calibrate(settings, args.labelled, args.split, out=sys.stdout, route=args.route))
    return asyncio.run(commands.kb_stats(settings, out=sys.stdout))


def cmd_simpbx(args: argparse.Namespace) -> int:
    from ai_operator.sim.pbx import serve_forever

    configure_logging("info", "auto")
    try:
        asyncio.run(serve_forever(args.host, args.port, args.user, args.password))
    except OSError as exc:
        why = os.strerror(exc.errno) if exc.errno else str(exc)
        if exc.errno == errno.EADDRINUSE:
            why += " (another process listens there: choose another --port)"
        raise OSError(exc.errno, f"cannot listen on {args.host}:{args.port}: {why}") from exc
    return 0


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """A real default (not None, not a flag's False) shown after each option's help; epilogs kept as written."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        help_text = action.help or ""
        if action.default in (None, False, argparse.SUPPRESS) or "%(default)" in help_text or not action.option_strings:
            return help_text
        return help_text + " (default: %(default)s)"


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ai-operator")
    except PackageNotFoundError:  # run from a source tree that was never installed
        from ai_operator import __version__

        return __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ai-operator", description=__doc__.splitlines()[0], formatter_class=_HelpFormatter)
    parser.add_argument("--version", action="version", version=f"ai-operator {_version()}")
    parser.add_argument("--debug", action="store_true", help="on failure, print the traceback too")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def common(p: argparse.ArgumentParser, *, env: bool = True) -> argparse.ArgumentParser:
        # SUPPRESS: given after the command it sets the value; not given, it leaves the top-level one alone.
        if env:
            p.add_argument("--env", default=DEFAULT_ENV_PATH, help="env file with the settings")
        p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="on failure, print the traceback too")
        return p

    def add(name: str, help_text: str, epilog: str | None = None) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text, epilog=epilog, formatter_class=_HelpFormatter)
        return common(p)

    p = add("call", "talk to a route's policy in the terminal (text in place of speech)", SCRIPT_HELP)
    p.add_argument("--route", required=True, help="route name, as in ROUTE_<NAME>_* of the env file")
    p.add_argument("--script", metavar="FILE", help="play the caller's lines from FILE (format below) instead of the prompt")
    p.add_argument("--json", action="store_true", help="one JSON object per turn on stdout")
    p.add_argument("--arg", action="append", metavar="KEY=VALUE",
                   help="one of the route policy's own options for this conversation: a file option (freight: "
                        "load=FILE) or a route option (repeatable; a path: relative to the current directory)")
    p.add_argument("--option", action="append", metavar="KEY=VALUE", help=argparse.SUPPRESS)  # the old --arg
    p.add_argument("--load", metavar="FILE", help="deprecated: --arg load=FILE")
    p.add_argument("--no-knowledge", action="store_true", help="do not open the knowledge base")
    p.set_defaults(func=cmd_call)

    p = add("dialogue-self-test", "run the policies' built-in scripted conversations (no network)")
    p.add_argument("--json", action="store_true", help="a JSON report on stdout")
    p.set_defaults(func=cmd_self_test)

    p = add("doctor", "check the installation; one line per check (all groups unless --check-* chosen)")
    p.add_argument("--json", action="store_true", help="a JSON report on stdout")
    p.add_argument("--check-dialogue", action="store_true", help="routes, policies, catalogs, regions, self-test")
    p.add_argument("--check-system", action="store_true", help="env file permissions and ARI password, state dir, RTP ports, other instances' env files")
    p.add_argument("--check-speech", action="store_true", help="espeak voices, STT/TTS/model endpoints")
    p.add_argument("--check-ari", action="store_true", help="ARI reachable, credentials, app, externalMedia")
    p.add_argument("--check-database", action="store_true", help="database, pgvector, knowledge base")
    p.set_defaults(func=cmd_doctor)

    p = add("run", "the daemon: serve calls from Asterisk (ARI)")
    p.set_defaults(func=cmd_run)

    p = add("demo", "start the daemon and the simulated PBX and place one call with espeak caller audio")
    p.add_argument("--route", default="test", help="route the demo call takes")
    p.add_argument("--state-dir", help="where the demo keeps its database, records and WAVs (relative: to the current directory; "
                   "default: $XDG_CACHE_HOME/ai-operator-demo, i.e. ~/.cache/ai-operator-demo)")
    p.set_defaults(func=cmd_demo)

    p = add("dial", "originate an outbound call into our app on a route (freight calls are outbound)")
    p.add_argument("--route", required=True, help="route name, as in ROUTE_<NAME>_* of the env file")
    p.add_argument("--endpoint", required=True, help="who to call, e.g. PJSIP/vendor@trunk")
    p.add_argument("--arg", action="append", metavar="KEY=FILE",
                   help="a file option of the route's policy for this call (freight: load=FILE); it must be in the "
                        "route's folder for it (freight: ROUTE_<NAME>_LOADS_DIR) (repeatable)")
    p.add_argument("--load", metavar="FILE", help="deprecated: --arg load=FILE")
    p.add_argument("--caller-id", help="caller ID shown to the called party")
    p.set_defaults(func=cmd_dial)

    p = add("kb", "knowledge base: ingest, search, stats, calibrate")
    kb = p.add_subparsers(dest="kb_command", required=True, metavar="KB_COMMAND")
    ki = kb.add_parser("ingest", help="ingest a JSONL file (idempotent upsert by id)", formatter_class=_HelpFormatter)
    ki.add_argument("file", help="JSONL file, one entry per line")
    ki.add_argument("--prune", action="store_true", help="remove entries whose id is not in the file")
    ki.add_argument("--force", action="store_true",
                    help=f"let --prune remove more than {commands_prune_share()} of the entries")
    ki.add_argument("--reembed", action="store_true", help="re-embed every chunk (after changing the embedder)")
    ks = kb.add_parser("search", help="hybrid search: hits with their relevance and whether it passes the gate",
                       formatter_class=_HelpFormatter)
    ks.add_argument("query", help="the question, as a caller would ask it")
    ks.add_argument("--language", required=True, help="ISO 639 code of the entries to search, e.g. ru or kk")
    ks.add_argument("--scope", "--region", dest="scope", default="",
                    help="the knowledge base's scope value (the operator's: a region, ISO 3166-2, e.g. KZ-35); "
                         "none: only the entries for all")
    ks.add_argument("--fallback", help="a second language searched when nothing relevant is found (e.g. ru)")
    ks.add_argument("--json", action="store_true", help="the hits as JSON")
    kb.add_parser("stats", help="entries and chunks per language and scope value", formatter_class=_HelpFormatter)
    kc = kb.add_parser("calibrate", help="fit the relevance gate to the knowledge base and the configured embedder "
                       "from labelled questions, and store it with them", formatter_class=_HelpFormatter)
    kc.add_argument("--labelled", metavar="FILE", help="JSONL labelled questions (q, lang, region, expect, split; "
                    "default: the sample knowledge base's, tests/data/kb_relevance.jsonl)")
    kc.add_argument("--split", default="calibration", help="the lines of this split are asked")
    for sub_parser in (ki, ks, kc):
        sub_parser.add_argument("--route", help="the route whose policy's knowledge base this is (default: the one "
                                "knowledge base the policies declare)")
    for sub_parser in kb.choices.values():  # `kb search --env F ...` works as well as `kb --env F search ...`
        sub_parser.add_argument("--env", default=argparse.SUPPRESS, help="env file with the settings")
        common(sub_parser, env=False)
    p.set_defaults(func=cmd_kb)

    p = sub.add_parser("simpbx", help="run the simulated PBX (an Asterisk ARI double) on its own",
                       description="run the simulated PBX (an Asterisk ARI double) on its own, until Ctrl-C",
                       formatter_class=_HelpFormatter)
    p.add_argument("--host", default="127.0.0.1", help="address the ARI HTTP/websocket server listens on")
    p.add_argument("--port", type=int, default=8088, help="its TCP port (Asterisk's http.conf default)")
    p.add_argument("--user", default="asterisk", help="ARI user the clients must present")
    p.add_argument("--password", default="asterisk", help="ARI password the clients must present")
    common(p, env=False)
    p.set_defaults(func=cmd_simpbx)
    return parser


def commands_prune_share() -> str:
    from ai_operator.kb.commands import PRUNE_MAX_SHARE

    return f"{PRUNE_MAX_SHARE * 100:.0f} %%"  # %% : argparse expands help strings with %


def describe_failure(exc: BaseException) -> str:
    """One line for an error nobody caught: what failed (file, address) and why, secrets masked."""
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        text = f"{where}{exc.strerror or exc}"
    else:
        text = f"{type(exc).__name__}: {exc}"
    return redact(" ".join(text.split()))


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    debug = bool(getattr(args, "debug", False))
    try:
        return int(args.func(args) or 0)
    except (EnvFileError, ConfigError) as exc:
        if debug:
            print(redact(traceback.format_exc()), file=sys.stderr, end="")
        print(f"ai-operator: configuration error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the last resort: one line, the traceback only when asked for
        if debug:
            print(redact(traceback.format_exc()), file=sys.stderr, end="")
        hint = "" if debug else " (--debug shows the traceback)"
        print(f"ai-operator: {args.command}: {describe_failure(exc)}{hint}", file=sys.stderr)
        return EXIT_FAILURE
