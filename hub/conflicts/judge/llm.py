"""An optional conflict judge that asks a language model, through any OpenAI-compatible endpoint."""

from __future__ import annotations

import json

import httpx
from pydantic import BaseModel, ConfigDict, ValidationError

from hub.conflicts.judge.rules import JudgeError, Judgement, Severity, Statement, Verdict, rule_severity

SYSTEM_PROMPT = """\
You compare two statements from one person's memory and say whether they contradict each other.
Answer with one JSON object and nothing else:
{"verdict": "conflict|same|compatible|different_subject", "severity": "high|medium|low|null", "reason": "..."}
- conflict: both cannot be true at once about the same subject (a value changed, one denies the other).
- same: they say the same thing in other words.
- compatible: same subject, but both can be true.
- different_subject: they are about different people or things.
severity, for a conflict only (else null): high if a wrong answer could hurt, cost money or break a rule
(health, money, safety, legal papers, family relations); low for tastes and preferences; medium otherwise.
reason: one short sentence."""


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore")

    verdict: Verdict
    severity: Severity | None = None
    reason: str


def _describe(label: str, s: Statement) -> str:
    line = f"{label}: {s.text}"
    if s.subject and s.attribute:
        line += f" (claim: {s.subject} / {s.attribute} = {s.value})"
    return line


class LLMJudge:
    """Judges a pair with one chat completion; raises `JudgeError` on an HTTP error or malformed answer."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 20,
        client: httpx.Client | None = None,
    ) -> None:
        self.url = f"{base_url.rstrip('/')}/chat/completions"
        self.model = model
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = client or httpx.Client(timeout=timeout)

    def judge(self, a: Statement, b: Statement, similarity: float | None = None) -> Judgement:
        """Reads the two texts; `similarity` is not used."""
        body = {
            "model": self.model,
            "temperature": 0,
            "response_format": {"type": "json_object"},
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": f"{_describe('A', a)}\n{_describe('B', b)}"},
            ],
        }
        try:
            response = self._client.post(self.url, json=body, headers=self._headers)
            response.raise_for_status()
        except httpx.HTTPError as exc:
            raise JudgeError(f"LLM judge at {self.url} failed: {exc}") from exc
        answer = _parse(response)
        if answer.verdict is not Verdict.conflict:
            return Judgement(answer.verdict, None, answer.reason)
        # A conflict the model did not grade gets the documented rule's severity.
        severity = answer.severity or rule_severity(a, b)
        return Judgement(Verdict.conflict, severity, answer.reason)

    def close(self) -> None:
        self._client.close()


def _parse(response: httpx.Response) -> _Answer:
    try:
        content = response.json()["choices"][0]["message"]["content"]
        if not isinstance(content, str):
            raise TypeError(f"message content is {type(content).__name__}, not text")
        return _Answer.model_validate(json.loads(content))
    except (ValueError, KeyError, IndexError, TypeError, ValidationError) as exc:
        raise JudgeError(
            f"malformed answer from the LLM judge: {exc}; body: {response.text[:300]!r}"
        ) from exc
