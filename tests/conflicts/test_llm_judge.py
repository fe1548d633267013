"""The LLM judge and the confirming judge, against a tiny local OpenAI-compatible endpoint."""

from __future__ import annotations

import json
import logging
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import pytest

from hub.conflicts import Judgement, RuleJudge, Severity, Statement, Verdict
from hub.conflicts.judge import JudgeError
from hub.conflicts.judge.combined import ConfirmingJudge, judge_from_settings
from hub.conflicts.judge.learned import LearnedJudge
from hub.conflicts.judge.llm import LLMJudge
from hub.conflicts.judge.pairmodel import PairModel
from hub.settings import Settings

CONFLICT = (Statement("Netanel works until 20:00."), Statement("Netanel finishes work at 18:00."))
SAME = (Statement("Noa is allergic to peanuts."), Statement("Noa has a peanut allergy."))


@dataclass
class Endpoint:
    """What the fake endpoint answers (the message content) and the requests it received."""

    url: str
    content: str = '{"verdict": "conflict", "severity": "high", "reason": "the hours changed"}'
    requests: list[tuple[dict[str, str], dict[str, Any]]] = field(default_factory=list)

    def answer(self, verdict: str, severity: str | None = None, reason: str = "llm says so") -> None:
        self.content = json.dumps({"verdict": verdict, "severity": severity, "reason": reason})


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # the name http.server dispatches to
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append(({k.lower(): v for k, v in self.headers.items()}, body))
            if self.path != "/v1/chat/completions":
                self.send_response(404)
                self.end_headers()
                return
            payload = json.dumps({"choices": [{"message": {"role": "assistant", "content": state.content}}]})
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload.encode())

        def log_message(self, *args: Any) -> None:  # keep the test output quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state = Endpoint(url=f"http://127.0.0.1:{server.server_address[1]}/v1")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()
    thread.join()


@pytest.fixture
def llm_judge() -> Iterator[Callable[..., LLMJudge]]:
    """A factory of LLM judges, each closed after the test."""
    made: list[LLMJudge] = []

    def make(url: str, **kwargs: Any) -> LLMJudge:
        made.append(LLMJudge(url, "test-model", **kwargs))
        return made[-1]

    yield make
    for judge in made:
        judge.close()


def test_parses_the_verdict_and_sends_model_statements_and_key(
    endpoint: Endpoint, llm_judge: Callable[..., LLMJudge]
) -> None:
    result = llm_judge(endpoint.url, api_key="sk-test").judge(*CONFLICT)
    assert (result.verdict, result.severity, result.reason) == (
        Verdict.conflict,
        Severity.high,
        "the hours changed",
    )
    [(headers, body)] = endpoint.requests
    assert headers["authorization"] == "Bearer sk-test"
    assert body["model"] == "test-model"
    assert body["temperature"] == 0
    assert body["response_format"] == {"type": "json_object"}
    prompt = body["messages"][-1]["content"]
    assert CONFLICT[0].text in prompt and CONFLICT[1].text in prompt


def test_non_conflicts_carry_no_severity_and_ungraded_conflicts_are_graded(
    endpoint: Endpoint, llm_judge: Callable[..., LLMJudge]
) -> None:
    judge = llm_judge(endpoint.url)
    endpoint.answer("same", "high")
    assert (judge.judge(*SAME).verdict, judge.judge(*SAME).severity) == (Verdict.same, None)
    endpoint.answer("conflict", None)
    assert judge.judge(*CONFLICT).severity is Severity.medium  # the documented rule: a schedule
    assert "authorization" not in endpoint.requests[0][0]


@pytest.mark.parametrize(
    "content",
    ["not json", "[]", '{"verdict": "maybe", "reason": "?"}', '{"verdict": "same"}', '{"severity": "low"}'],
)
def test_malformed_answer_is_a_judge_error(
    endpoint: Endpoint, llm_judge: Callable[..., LLMJudge], content: str
) -> None:
    endpoint.content = content
    with pytest.raises(JudgeError, match="malformed answer"):
        llm_judge(endpoint.url).judge(*CONFLICT)


def test_http_error_is_a_judge_error(endpoint: Endpoint, llm_judge: Callable[..., LLMJudge]) -> None:
    with pytest.raises(JudgeError, match="404"):
        llm_judge(endpoint.url + "/wrong").judge(*CONFLICT)


def test_confirm_mode_asks_only_about_rule_conflicts_and_a_no_downgrades(
    endpoint: Endpoint, llm_judge: Callable[..., LLMJudge]
) -> None:
    judge = ConfirmingJudge(second=llm_judge(endpoint.url), mode="confirm")
    assert RuleJudge().judge(*SAME).verdict is Verdict.same
    assert judge.judge(*SAME).verdict is Verdict.same
    assert endpoint.requests == []

    endpoint.answer("conflict", "low", "yes, the hours changed")
    confirmed = judge.judge(*CONFLICT)
    # The conflict stands with the rule's severity: the documented policy, not the model's.
    assert (confirmed.verdict, confirmed.severity) == (Verdict.conflict, Severity.medium)
    assert "yes, the hours changed" in confirmed.reason

    endpoint.answer("compatible", None, "both can be true")
    assert judge.judge(*CONFLICT) == Judgement(Verdict.compatible, None, "both can be true")
    assert len(endpoint.requests) == 2


def test_replace_mode_sends_every_pair(endpoint: Endpoint, llm_judge: Callable[..., LLMJudge]) -> None:
    judge = ConfirmingJudge(second=llm_judge(endpoint.url), mode="replace")
    endpoint.answer("different_subject", None, "two people")
    assert judge.judge(*SAME).verdict is Verdict.different_subject
    assert judge.judge(*CONFLICT).verdict is Verdict.different_subject
    assert len(endpoint.requests) == 2


@pytest.mark.parametrize("mode", ["confirm", "replace"])
def test_endpoint_down_falls_back_to_the_rule_verdict(
    llm_judge: Callable[..., LLMJudge], caplog: pytest.LogCaptureFixture, mode: Literal["confirm", "replace"]
) -> None:
    with socket.socket() as probe:  # a free port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    judge = ConfirmingJudge(second=llm_judge(f"http://127.0.0.1:{port}/v1", timeout=2), mode=mode)
    with caplog.at_level(logging.WARNING, logger="hub.conflicts.judge.combined"):
        assert judge.judge(*CONFLICT) == RuleJudge().judge(*CONFLICT)
    assert "second judge failed" in caplog.text


def test_unsure_mode_asks_only_where_the_pair_judge_is_unsure_or_cannot_read(
    endpoint: Endpoint, llm_judge: Callable[..., LLMJudge], pair_model: PairModel
) -> None:
    first = LearnedJudge(pair_model)
    judge = ConfirmingJudge(second=llm_judge(endpoint.url), primary=first, mode="unsure")
    # Two records of what happened, and a pair the model reads as plainly compatible: nobody is asked.
    events = (
        Statement("Ran 5 km in the park", nature="event"),
        Statement("Ran 8 km in the park", nature="event"),
    )
    plain = (Statement("Noa is 7 years old."), Statement("Noa loves drawing horses."))
    for pair in (events, plain):
        assert not first.judge(*pair).unsure
        assert judge.judge(*pair).verdict is Verdict.compatible
    assert endpoint.requests == []

    endpoint.answer("conflict", "medium", "the hours changed")
    hebrew = judge.judge(Statement("נתנאל עובד עד 20:00"), Statement("נתנאל מסיים לעבוד ב-18:00"))
    assert (hebrew.verdict, hebrew.severity) == (Verdict.conflict, Severity.medium)
    # The language model decided a pair the first judge could not read: proposed, never acted on alone.
    assert hebrew.inferred
    assert "cannot read" in hebrew.reason and "the hours changed" in hebrew.reason
    [(_, body)] = endpoint.requests
    assert "נתנאל" in body["messages"][-1]["content"]


def test_judge_from_settings(endpoint: Endpoint, pair_model: PairModel) -> None:
    assert isinstance(judge_from_settings(Settings(), pair_model=pair_model), LearnedJudge)
    assert isinstance(judge_from_settings(Settings(judge="rules")), RuleJudge)
    judge = judge_from_settings(
        Settings(judge="llm", judge_mode="replace", llm_judge_url=endpoint.url, llm_judge_api_key="sk-x"),
        pair_model=pair_model,
    )
    assert isinstance(judge.primary, LearnedJudge)  # type: ignore[attr-defined]
    assert isinstance(judge, ConfirmingJudge) and isinstance(judge.second, LLMJudge)
    assert judge.mode == "replace"
    try:
        endpoint.answer("same")
        assert judge.judge(*CONFLICT).verdict is Verdict.same
        headers, body = endpoint.requests[0]
        assert headers["authorization"] == "Bearer sk-x" and body["model"] == "gpt-4o-mini"
    finally:
        judge.close()  # what Services.close calls: the LLM judge's connections are released
    assert judge.second._client.is_closed
    with pytest.raises(ValueError, match="MEMHUB_LLM_JUDGE_URL"):
        judge_from_settings(Settings(judge="llm"), pair_model=pair_model)
    with pytest.raises(ValueError, match="MEMHUB_NLI_MODEL_PATH"):
        judge_from_settings(Settings(judge="nli"), pair_model=pair_model)
