"""The NLI judge, on a local cross-encoder named by MEMHUB_TEST_NLI_MODEL (none ships with memhub)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hub.conflicts import Statement, Verdict
from hub.conflicts.judge import JudgeError
from hub.conflicts.judge.combined import ConfirmingJudge, judge_from_settings
from hub.conflicts.judge.nli import NLIJudge, _label_order
from hub.settings import Settings

MODEL = os.environ.get("MEMHUB_TEST_NLI_MODEL")


def test_label_order_follows_the_model_config() -> None:
    assert _label_order({0: "CONTRADICTION", 1: "entailment", 2: "neutral"})[0] == "contradiction"
    assert _label_order({"0": "entailment", "1": "neutral", "2": "contradiction"})[2] == "contradiction"
    with pytest.raises(JudgeError, match="not an NLI model"):
        _label_order({0: "negative", 1: "positive"})


def test_missing_model_folder_is_a_judge_error(tmp_path: Path) -> None:
    with pytest.raises(JudgeError, match="does not exist"):
        NLIJudge(tmp_path / "nowhere")


@pytest.mark.skipif(
    not MODEL, reason="no NLI model on this machine: set MEMHUB_TEST_NLI_MODEL to a local folder"
)
def test_nli_judge_on_a_real_model() -> None:
    assert MODEL
    judge = NLIJudge(MODEL)
    changed = judge.judge(
        Statement("Netanel works until 20:00."), Statement("Netanel never works past 18:00.")
    )
    assert changed.verdict is Verdict.conflict and changed.severity is not None
    same = judge.judge(Statement("Noa is allergic to peanuts."), Statement("Noa is allergic to peanuts."))
    assert same.verdict is Verdict.same
    built = judge_from_settings(Settings(judge="nli", nli_model_path=Path(MODEL)))
    assert isinstance(built, ConfirmingJudge) and isinstance(built.second, NLIJudge)
