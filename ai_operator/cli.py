"""The `ai-operator` command: argument parsing and one small function per sub-command.

Every command takes `--env PATH` (default /etc/ai-operator/ai-operator.env). Configuration errors print one
line naming the file, line and key, and exit with status 2.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from ai_operator.config import DEFAULT_ENV_PATH, ConfigError, EnvFileError, Settings, load_settings
from ai_operator.logs import configure_logging, get_logger, register_secret

EXIT_CONFIG = 2


def _settings(args: argparse.Namespace, *, quiet: bool = False) -> Settings:
    settings = load_settings(args.env)
    for secret in settings.secrets():
        register_secret(secret)
    level = "warning" if quiet and settings.ops.log_level == "info" else settings.ops.log_level
    configure_logging(level, settings.ops.log_format)
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
    from ai_operator.wiring import route_with_option

    for raw in [*(f"LOAD={args.load}" for _ in [0] if args.load), *(args.option or [])]:
        key, _, value = raw.partition("=")
        try:
            route = route_with_option(settings, route, key.strip().upper(), value)
        except KeyError:
            raise ConfigError(f"--option {key}: policy {route.policy} has no route option {key.upper()}") from None
        except (ValueError, OSError) as exc:
            raise ConfigError(f"--option {key.upper()}={value}: {exc}") from None
    script = None
    if args.script:
        try:
            script = Path(args.script).read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise ConfigError(f"--script {args.script}: {exc.strerror}") from None
    return asyncio.run(
        run_console(settings, route, script=script, as_json=args.json, use_knowledge=not args.no_knowledge)
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

    settings = _settings(args)
    return asyncio.run(run_daemon(settings, env_path=args.env))


def cmd_demo(args: argparse.Namespace) -> int:
    from ai_operator.sim.demo import run_demo

    settings = _settings(args, quiet=True)
    return asyncio.run(run_demo(settings, route_name=args.route, state_dir=args.state_dir, out=sys.stdout))


def cmd_dial(args: argparse.Namespace) -> int:
    from ai_operator.daemon.dial import dial

    settings = _settings(args)
    return asyncio.run(dial(settings, route_name=args.route, endpoint=args.endpoint, load=args.load, caller_id=args.caller_id))


def cmd_kb(args: argparse.Namespace) -> int:
    from ai_operator.kb import commands

    settings = _settings(args, quiet=True)
    if args.kb_command == "ingest":
        return asyncio.run(commands.kb_ingest(settings, args.file, prune=args.prune, reembed=args.reembed, out=sys.stdout))
    if args.kb_command == "search":
        return asyncio.run(
            commands.kb_search(settings, args.query, args.language, args.region, as_json=args.json, out=sys.stdout,
                               fallback=args.fallback)
        )
    return asyncio.run(commands.kb_stats(settings, out=sys.stdout))


def cmd_simpbx(args: argparse.Namespace) -> int:
    from ai_operator.sim.pbx import serve_forever

    configure_logging("info", "auto")
    asyncio.run(serve_forever(args.host, args.port, args.user, args.password))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ai-operator", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument("--env", default=DEFAULT_ENV_PATH, help=f"env file (default {DEFAULT_ENV_PATH})")
        return p

    p = add("call", "talk to a route's policy in the terminal (text in place of speech)")
    p.add_argument("--route", required=True)
    p.add_argument("--script", help="file with one caller utterance per line (+SECONDS prefix = arrival delay)")
    p.add_argument("--json", action="store_true", help="one JSON object per turn")
    p.add_argument("--load", help="a load JSON file (the same as --option LOAD=FILE, for policies with a LOAD option)")
    p.add_argument("--option", action="append", metavar="KEY=VALUE",
                   help="set one of the policy's own route options for this conversation (repeatable)")
    p.add_argument("--no-knowledge", action="store_true", help="do not open the knowledge base")
    p.set_defaults(func=cmd_call)

    p = add("dialogue-self-test", "run the policies' built-in scripted conversations (no network)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_self_test)

    p = add("doctor", "check the installation; one line per check (all groups unless --check-* chosen)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--check-dialogue", action="store_true", help="routes, policies, catalogs, regions, self-test")
    p.add_argument("--check-system", action="store_true", help="env file permissions, state dir, RTP ports")
    p.add_argument("--check-speech", action="store_true", help="espeak voices, STT/TTS/model endpoints")
    p.add_argument("--check-ari", action="store_true", help="ARI reachable, credentials, app, externalMedia")
    p.add_argument("--check-database", action="store_true", help="database, pgvector, knowledge base")
    p.set_defaults(func=cmd_doctor)

    p = add("run", "the daemon: serve calls from Asterisk (ARI)")
    p.set_defaults(func=cmd_run)

    p = add("demo", "start the daemon and the simulated PBX and place one call with espeak caller audio")
    p.add_argument("--route", default="test")
    p.add_argument("--state-dir", help="where the demo keeps its database, records and WAVs (default ./state)")
    p.set_defaults(func=cmd_demo)

    p = add("dial", "originate an outbound call into our app on a route (freight calls are outbound)")
    p.add_argument("--route", required=True)
    p.add_argument("--endpoint", required=True, help="e.g. PJSIP/vendor@trunk")
    p.add_argument("--load", help="freight load JSON file")
    p.add_argument("--caller-id")
    p.set_defaults(func=cmd_dial)

    p = add("kb", "knowledge base: ingest, search, stats")
    kb = p.add_subparsers(dest="kb_command", required=True)
    ki = kb.add_parser("ingest", help="ingest a JSONL file (idempotent upsert by id)")
    ki.add_argument("file")
    ki.add_argument("--prune", action="store_true", help="remove entries whose id is not in the file")
    ki.add_argument("--reembed", action="store_true", help="re-embed every chunk (after changing the embedder)")
    ks = kb.add_parser("search", help="hybrid search: hits with their relevance and whether it passes the gate")
    ks.add_argument("query")
    ks.add_argument("--language", required=True, help="ISO 639 code of the entries to search, e.g. ru or kk")
    ks.add_argument("--region", required=True, help="ISO 3166-2 code, e.g. KZ-35")
    ks.add_argument("--fallback", help="a second language searched when nothing relevant is found (e.g. ru)")
    ks.add_argument("--json", action="store_true")
    kb.add_parser("stats", help="entries and chunks per language and region")
    for sub_parser in kb.choices.values():  # `kb search --env F ...` works as well as `kb --env F search ...`
        sub_parser.add_argument("--env", default=argparse.SUPPRESS, help="env file")
    p.set_defaults(func=cmd_kb)

    p = sub.add_parser("simpbx", help="run the simulated PBX (an Asterisk ARI double) on its own")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8088)
    p.add_argument("--user", default="asterisk")
    p.add_argument("--password", default="asterisk")
    p.set_defaults(func=cmd_simpbx)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (EnvFileError, ConfigError) as exc:
        print(f"ai-operator: configuration error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except KeyboardInterrupt:
        return 130
