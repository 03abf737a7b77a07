"""The contract between the daemon and a dialogue policy. Pure types, no I/O.

A policy is hard-coded logic that sees every turn *before* any model or tool runs. The runtime (console or
phone, see `conversation.py`) feeds it events and gets back a `Reply`. A reply may carry an `Effect`: work the
policy wants done outside itself (a knowledge-base search, a model-written line). The runtime performs the
effect and hands the result back with `on_effect_result`, which yields the next `Reply`; so the policy decides
what may happen, the runtime only does it.

A model's tool call is checked with `call_tool` before anything runs: the policy answers with a `ToolCall`
(allowed or not, and why) and, for tools it owns (language, region, handoff, end of call), applies it.

The contract owns every type a policy sees, the route included (`RouteView`): a policy imports this module and,
of the runtime, only the pure helpers `tests/test_structure.py` allows; this package imports nothing of ours.
Its knowledge-base part (`knowledge.py`: profile, search, hits) is re-exported here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ai_operator.dialogue.knowledge import (  # the knowledge-base part, re-exported
    AnswersFromKnowledge,
    HasKnowledgeBase,
    KnowledgeHit,
    KnowledgeProfile,
    KnowledgeScope,
    KnowledgeSearch,
    KnowledgeUnavailable,
    knowledge_profile,
    search_result_for_model,
)

__all__ = [  # the contract: everything a policy may use, the knowledge-base part included
    "AnswersFromKnowledge", "CheckResult", "Effect", "FileOption", "HasKnowledgeBase", "KnowledgeHit",
    "KnowledgeProfile", "KnowledgeScope", "KnowledgeSearch", "KnowledgeUnavailable", "ListsFixedReplies", "ModelTurn",
    "OptionContext", "PolicyDefinition", "PolicySession", "Reply", "RouteOption", "RouteView", "SelfTestCase",
    "SelfTestResult", "SessionOptions", "TakesFiles", "ToolCall", "ToolSpec", "file_options", "knowledge_profile",
    "search_result_for_model", "utterance_complete",
]


@dataclass(frozen=True)
class ToolSpec:
    """A tool a policy may offer a model: its name, what it does, and its arguments as a JSON schema."""

    name: str
    description: str
    parameters: Mapping[str, Any]

    def as_openai(self) -> dict[str, Any]:
        """The chat-completions `tools` entry."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": dict(self.parameters)},
        }


@dataclass(frozen=True)
class ToolCall:
    """One permission decision on a tool, as recorded in the turn and session history."""

    name: str
    allowed: bool
    reason: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    result: Any = None  # what a policy-owned tool returned (for the model), or None
    effect: Effect | None = None  # for an allowed tool the runtime must run (e.g. the knowledge base)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "allowed": self.allowed, "reason": self.reason}



@dataclass(frozen=True)
class ModelTurn:
    """Effect: ask the model for the next line.

    Result: the model's text, or `None` when no model is configured or it failed (the policy then speaks
    `fallback`). `tools` lists the tool names the policy allows *now*; every call the model makes still goes
    through `PolicySession.call_tool`.
    """

    system: str
    messages: Sequence[Mapping[str, Any]]
    fallback: str
    tools: Sequence[ToolSpec] = ()
    purpose: str = ""  # short tag for logs and records, e.g. "answer", "probe", "goodbye"
    # A constrained answer: the model must reply with one JSON object matching this schema (the policy still
    # validates it and falls back when it does not).
    response_schema: Mapping[str, Any] | None = None
    # A language: the policy's reply to this turn will be the model's text as it is, so the runtime may speak it
    # in this language while it streams (a sentence as soon as it is complete). Tool calls still go through
    # `call_tool` first; a reply that differs from the model's text is spoken instead. None: nothing is said
    # before the policy has the whole answer.
    speak_as_streamed: str | None = None


Effect = KnowledgeSearch | ModelTurn


@dataclass
class Reply:
    """What the policy wants said and done after one event."""

    text: str | None
    language: str  # TTS voice: "ru", "kk", "hi", ...
    hang_up: bool = False  # arm CallEnd once this reply has played
    hang_up_reason: str | None = None
    disposition: str | None = None
    transfer: bool = False  # hand the caller to the route's handoff target after this reply
    tool_calls: list[ToolCall] = field(default_factory=list)
    effect: Effect | None = None
    fields: dict[str, Any] = field(default_factory=dict)  # policy-specific turn fields (state, phase, ...)
    notes: list[str] = field(default_factory=list)  # what the policy noticed, for the runtime to log (no I/O here)


@runtime_checkable
class PolicySession(Protocol):
    """One conversation with one policy. Every method is pure and fast (well under 1 ms)."""

    call_id: str
    hold_s: float  # how long a dangling utterance is held for its continuation; 0 = never

    @property
    def spoken_language(self) -> str:
        """The caller's language as far as known now (STT hint, voice of runtime-forced lines)."""
        ...

    def start(self) -> Reply:
        """The call is answered: the greeting."""
        ...

    def on_utterance(self, text: str) -> Reply:
        """The caller said `text` (already merged across a turn boundary)."""
        ...

    def on_dtmf(self, digit: str) -> Reply:
        """The caller pressed a key."""
        ...

    def on_silence(self) -> Reply:
        """The caller said nothing for the idle timeout: re-prompt, or give up (hang_up) after repeats."""
        ...

    def on_not_heard(self) -> Reply:
        """Speech arrived but could not be transcribed (STT failure): the hearing-problem line."""
        ...

    def on_forced_end(self, reason: str) -> Reply:
        """The runtime must end the call (`reason`: "shutdown" when the daemon stops, "max_call_length"): the
        policy's closing line for it, with hang_up=True and a disposition. After this no new turn starts."""
        ...

    def on_effect_result(self, result: Any) -> Reply:
        """The result of the previous reply's `effect`."""
        ...

    def call_tool(self, name: str, arguments: Mapping[str, Any]) -> ToolCall:
        """A model asks for a tool: check it (and apply it when the policy owns it). Recorded either way."""
        ...

    def utterance_may_continue(self, text: str) -> bool:
        """True when `text` ends dangling and should be held `hold_s` for its continuation."""
        ...

    def on_call_ended(self, ended_by: str) -> None:
        """The call is over (bot, caller, watchdog, system). Idempotent."""
        ...

    def snapshot(self) -> dict[str, Any]:
        """Current state for records and the console (same keys as `Reply.fields`)."""
        ...


def utterance_complete(session: PolicySession, text: str) -> bool | None:
    """The optional contract method `session.utterance_complete(text) -> bool | None`, asked at a short pause
    (`VAD_EARLY_STT_MS`) with the transcript so far: True when `text` is a whole answer for the state the session
    is in ("русский" when it asked for the language, "да" to an offer), so the runtime may end the turn there and
    answer (it withdraws that decision, restoring the session, if the caller goes on before the reply is heard);
    False when it ends dangling; None when the policy does not know. Anything but True waits for the normal end
    of the utterance (`VAD_END_SILENCE_MS`), as does a session without the method. Pure and fast, like the rest:
    it must not change the session."""
    method = getattr(session, "utterance_complete", None)
    return None if method is None else method(text)


@dataclass(frozen=True)
class SelfTestResult:
    name: str
    passed: bool
    details: str = ""


@dataclass(frozen=True)
class SelfTestCase:
    """One scripted conversation or rule check of `dialogue-self-test`; runs with no I/O."""

    name: str
    run: Callable[[], SelfTestResult]

    @classmethod
    def of_problems(cls, name: str, check: Callable[[], list[str]]) -> SelfTestCase:
        """A case from a check that lists what is wrong (passed when the list is empty)."""

        def run() -> SelfTestResult:
            problems = check()
            return SelfTestResult(name=name, passed=not problems, details="; ".join(problems))

        return cls(name=name, run=run)


@dataclass(frozen=True)
class CheckResult:
    """One line of `doctor`: OK, WARN or FAIL, what was checked, and for a failure what to do."""

    name: str
    status: str  # "OK" | "WARN" | "FAIL"
    detail: str = ""

    def as_dict(self) -> dict[str, str]:
        return {"name": self.name, "status": self.status, "detail": self.detail}


@dataclass(frozen=True)
class OptionContext:
    """Where a route option's relative paths point: the env file's folder, and the route's file folders (the
    `FileOption.folder` keys of its policy, e.g. freight's LOADS_DIR, as absolute paths)."""

    base_dir: Path
    folders: Mapping[str, Path] = field(default_factory=dict)

    def folder(self, key: str) -> Path:
        """The route's folder option `key` (a `FileOption.folder`); the env file's folder when it has none."""
        return self.folders.get(key.upper(), self.base_dir)


@dataclass(frozen=True)
class FileOption:
    """A file a call of the policy may be given (`ai-operator dial --arg KEY=FILE`, which travels as the Stasis
    argument `key=<absolute path>`). The runtime accepts such a file only inside the route's folder `folder`
    (the route option `ROUTE_<NAME>_<FOLDER>`, relative to the env file's folder; `default_folder` when unset),
    so a dialplan or originate argument never reads an arbitrary file; it then has `read` read and check it
    (ValueError or OSError of one line naming the file, the line or field, the value and what is allowed) and
    hands the value to the session as `SessionOptions.files[key]`."""

    doc: str
    folder: str  # the route option naming the folder, e.g. "LOADS_DIR"
    read: Callable[[Path], Any]
    default_folder: str = ""  # relative to the env file's folder


@runtime_checkable
class TakesFiles(Protocol):
    """Optional part of a `PolicyDefinition`: the files a call may be given, by argument key (lower-case)."""

    file_options: Mapping[str, FileOption]


def file_options(policy: object) -> Mapping[str, FileOption]:
    """`policy`'s file options (none for a policy that declares no `file_options`)."""
    return policy.file_options if isinstance(policy, TakesFiles) else {}


@dataclass(frozen=True)
class RouteView:
    """What a policy sees of a route: its name (lower-case, as in the Stasis argument) and its own options
    (`ROUTE_<NAME>_<OPTION>` keys it declares in `route_options`), already parsed by the option's `parse`; an
    option set empty is None, one not set is absent. The runtime's own route options (handoff target, provider
    overrides, HOLD_S) are the runtime's business and are not shown here."""

    name: str
    options: Mapping[str, Any] = field(default_factory=dict)

    def option(self, key: str, default: Any = None) -> Any:
        """A policy option by its env name (e.g. "LOAD")."""
        return self.options.get(key.upper(), default)


@dataclass(frozen=True)
class RouteOption:
    """A route option a policy declares (`ROUTE_<NAME>_<OPTION>`): what it is, and how its text is parsed into
    a value where the runtime is assembled (start-up, reload, doctor; `parse` raises ValueError or OSError saying
    what is allowed, which becomes one line naming the file, line, key and value)."""

    doc: str
    parse: Callable[[str, OptionContext], Any]
    required: bool = False


@dataclass(frozen=True)
class SessionOptions:
    """What the runtime tells a new session: adapters available, limits, the call's own Stasis arguments, and
    the files among them already read by their `FileOption` (e.g. freight's `load`), by key."""

    model_available: bool = False
    handoff_available: bool = False
    max_misunderstood_turns: int = 3
    call_args: Mapping[str, str] = field(default_factory=dict)
    context: OptionContext | None = None
    files: Mapping[str, Any] = field(default_factory=dict)


class PolicyDefinition(Protocol):
    """What a policy package exposes as `POLICY` in its `__init__.py`. Everything policy-specific lives behind
    it: languages, voices, tools, lines, route options; the runtime reads them and knows none of it."""

    name: str
    languages: tuple[str, ...]  # languages its calls speak (TTS voices); the first is the default
    state_field: str  # the key of `Reply.fields` that names the dialogue state ("state", "phase", ...)
    turn_fields: tuple[str, ...]  # keys its `Reply.fields` always carries
    tools: tuple[ToolSpec, ...]  # every tool it may offer a model
    route_options: Mapping[str, RouteOption]  # its own `ROUTE_<NAME>_<OPTION>` keys
    demo_caller: tuple[tuple[str, str], ...]  # what the simulated caller of `ai-operator demo` says: (language, text)

    def new_session(self, call_id: str, route: RouteView, options: SessionOptions) -> PolicySession:
        """A fresh session; raises ValueError (one line) when `options.call_args` are not acceptable. The runtime
        sets the session's `hold_s` afterwards when the route says HOLD_S (over the policy's default)."""
        ...

    def voice_segments(self, text: str, language: str) -> list[tuple[str, str]]:
        """How a reply is voiced: (text, language) parts in order, e.g. a Kazakh line inside a Russian reply."""
        ...

    def canned_lines(self, route: RouteView) -> list[tuple[str, str]]:
        """Lines every call may need at once (greeting, closing lines), as (text, language), for the TTS cache."""
        ...

    def self_test(self) -> list[SelfTestCase]: ...

    def doctor_checks(self) -> list[CheckResult]: ...


@runtime_checkable
class ListsFixedReplies(Protocol):
    """Optional part of a `PolicyDefinition`: the replies it can say without a model, synthesised ahead."""

    def fixed_replies(self, route: RouteView) -> list[tuple[str, str]]:
        """Every reply text (as `Reply.text`, with its `Reply.language`) the policy can produce without a model or
        a knowledge-base entry, composites included, most used first; the runtime voices each with
        `voice_segments` into the TTS cache at start."""
        ...
