"""Secrets said in nine languages: what the detector refuses, and what it costs, in one run.

    python -m benchmarks.secrets_i18n                # per language, on each half, and the cost
    python -m benchmarks.secrets_i18n --errors dev   # also list what the dev half gets wrong
    python -m benchmarks.secrets_i18n --project-data # also screen every text of benchmarks/data

The set is tests/data/secrets_i18n.jsonl: per language, secrets said the ways people say them (PINs,
passwords, passphrases, door, gate and alarm codes, CVVs, bank logins, recovery codes) and
look-alikes that must stay storable (postcodes, rooms, times, prices, flights, phone numbers, ...),
half dev and half test, a fresh half (8 + 8 per language) and a third, fresh3 (10 + 10 per language,
written blind on 2026-12-02). The test half was written with the dev half, before any rule; its misses
were read once, to fix them. The fresh half was written after that measure and kept unread as the blind
one; its 7 misses (of 72 secrets) were then read and fixed by general changes. fresh3 was measured once
before anyone read it (72 of 90 secrets refused, 60 named, no look-alike refused); it is spent too: its
misses were then read and fixed by general changes (a keypad's star or hash, codes keyed in after what
they open, words before a colon, listed codes, banks by name). fresh4 (10 + 10 per language) was
written blind meanwhile, by a writer asked for more varied phrasing, and measured once after those
changes: 52 of 90 secrets refused, 51 named, no look-alike refused. fresh5 (10 + 10 per language)
was written blind on 2026-12-03, by a writer who opened no file of the repository, and measured once
on the model and rules of that day: 73 of 90 secrets refused, 70 named, 1 of 90 look-alikes refused.
Both were measured once more when the model learned from nine writers' training sentences, with
features for the words just before a value and its length, at a threshold chosen by cross-validation
(fresh4: 67 refused, 66 named, no look-alike refused; fresh5: 72 refused, 70 named, none refused).
fresh6 (10 + 10 per language) was written blind on 2026-12-04 by a writer who opened no file of the
repository, and measured once on that day's model and rules: 76 of 90 secrets refused, 74 named, 3 of
90 look-alikes refused (pt, ar, he). Measured once more when digits read out one by one ("4 4 1 8")
became one value for the model (trained as before, threshold by the same CV rule), in one session:
fresh4 76 -> 84, fresh5 76 -> 78, fresh6 76 -> 81 refused; look-alikes 0, 0, 4 -> 0, 0, 3. Giving
such a value the shape and length of its digits written together ("4418") then took the held-out
voice writer from 21 to 66 of 81 in `training.secret_detector --cv` (all held out 1,235 -> 1,286 of
1,569, look-alikes 13 both), but the blind halves from 84 / 78 / 81 to 83 / 77 / 81 refused and
fresh6's look-alikes from 3 to 4: not shipped. fresh7 (10 + 10 per language) was written blind on
2026-12-06 by a writer who opened no file of the repository, and measured once on that day's model and
rules: 79 of 90 secrets refused, 76 named, no look-alike refused. When a value lost the punctuation of
any script after it and a Hebrew prefix joined to it, and a dial's pairs of digits became one value, the
same day: fresh4 84 -> 85, fresh5 78, fresh6 81, fresh7 79 refused (75 named); look-alikes 0, 0, 3, 0.
With eight more writers' training sentences (1,296), the same day, at 0.8: 87, 79, 83, 81 refused (86,
77, 80, 79 named); look-alikes 0, 0, 2, 0. At 0.75, which the CV rule gave and was not shipped, they
were 87, 80, 83, 82 refused and 0, 0, 3, 0 look-alikes. With a ninth writer's quantities said with
their units, at 0.75, which the CV rule gave again: 88, 80, 83, 82 refused (87, 78, 80, 79 named);
look-alikes 0, 0, 3, 0. After that last measurement fresh7's rows were shown once, in a diff read
before landing; nothing was changed after it, but fresh7 is no longer blind for a later change.
fresh8 (10 + 10 per language) was written blind the same day, after the last change, by a writer who
opened no file of the repository, and measured once on the model before that day's changes and once on
the model after them: 72 -> 78 of 90 secrets refused, 68 -> 75 named, 1 -> 2 of 90 look-alikes refused.
Measured and not shipped: a phrase between double quotes of any language as a value (a passphrase is
words), which took the CV at 0.75 from 1,914 to 1,962 held-out secrets refused with look-alikes at 23,
but the blind halves from 88 / 80 / 83 / 78 to 88 / 80 / 83 / 77 refused (fresh4, 5, 6, 8).
fresh9 (10 + 10 per language) was written blind on 2026-12-06 by a writer who opened no file of the
repository, asked for at least one passphrase in plain words and one wallet seed phrase per language
(told that wallets give 12 or 24 words, and that people also write fewer), and measured once on the
model and rules of that day: 73 of 90 secrets refused, 69 named, 1 of 90 look-alikes refused. Once
more when a run of 12 words of one BIP-39 list became a seed phrase, in one session: 78 refused, 75
named (70 before, counting a seed phrase named as one), 1 look-alike; the other blind halves did not
move (88, 80, 83, 82, 78). Measured and not shipped, the same day: phrases of 2 to 8 words as values
for the model, after a colon, a dash or an arrow or between quotes of any script (CV: at 0.85, where
the CV rule then stood, 1,850 of 2,269 held-out secrets refused, against 1,914 at 0.75 before), and
between quotes alone, paired (CV at 0.75: 1,965 refused, 1,868 named, look-alikes 23 as before; blind,
measured once: fresh4 to fresh8 unchanged, fresh9 78 -> 77 refused and 1 -> 4 look-alikes refused).
fresh9 has decided one change (the quoted phrases) and is the less blind for it. fresh10 (10 + 10
per language) was written blind after the last change, the same day, by a writer who opened no file of
the repository, asked for two passphrases of ordinary words per language (one set apart by a colon or
quotes, one with no punctuation) and for look-alikes that mention a passphrase without giving it or
quote a phrase; measured once on that day's model and rules: 76 of 90 secrets refused, 73 named, no
look-alike refused (of 87: three repeated sentences of fresh3 and fresh4 word for word, and were
dropped). When a passphrase's words after its name and a colon or a dash became its value (a rule), in
one session: fresh4 88, fresh5 80 -> 83, fresh6 83 -> 88, fresh7 82, fresh8 78 -> 79, fresh9 78 -> 84,
fresh10 76 refused; look-alikes 0, 0, 3, 0, 2, 1, 0 unchanged. fresh11 (10 + 10 per language) was
written blind after that change, the same day, by a writer who opened no file of the repository, asked
for varied situations and regional varieties, and measured once: 82 of 90 secrets refused, 78 named, no
look-alike refused (of 88: two repeated earlier sentences word for word and were dropped). It is the
one half no change has been decided on. fresh12 (10 + 10 per language) was written blind the same day,
before the next change, by a writer who opened no file of the repository, asked for two passphrases of
ordinary words per language (one right after the language's "is", with no quotes or colon) and for
look-alikes that say after "is" what a password or passphrase is like or where it is; measured once on
main before that change: 76 of 90 secrets refused, 76 named, 3 of 88 look-alikes refused (two repeated
earlier sentences word for word and were dropped). When a passphrase's words after "is" became its
value where none is a function word (a rule), in one session: fresh5 83 -> 84, fresh9 84 -> 85, fresh11
82 -> 86, fresh12 76 -> 83 refused, the six others unchanged; look-alikes unchanged (9 of 803). fresh4,
fresh5, fresh6, fresh8, fresh9, fresh10, fresh11 and fresh12 are the blind halves: leave their rows
unread; each has now decided a change. fresh13 (10 + 10 per language) was written blind after that
change, the same day, by a writer who opened no file of the repository, asked for two passphrases per
language named and given as speakers do (their own words or English loanwords, "seed/recovery phrase"
included; after "is", a colon, in quotes, run on, as the answer in an exchange) and for look-alikes that
talk about a password or a phrase without giving it (warnings never to share it among them); measured
once on main before the next change: 72 of 90 secrets refused, 67 named, no look-alike refused. fresh13
is a blind half too. Three changes were then measured on every half, each once, and none shipped:
English's passphrase names read as loanwords by every language's rules ("la passphrase del wallet es
..."; training passphrases 58 -> 64 of 125): no half moved; with "seed phrase" and "recovery phrase"
among English's passphrase names too (training 64 -> 69): fresh6 88 -> 89, fresh13 72 -> 74 refused, but
fresh13's look-alikes 0 -> 1 refused, which the 1% of look-alikes all halves allow could not take (9 of
893 already); and words after a passphrase's colon of which more than 60% are function words read as a
sentence ("seed phrase: never share it with anyone"): nothing moved. fresh13 has decided them. fresh14
(10 + 10 per language; one look-alike repeating an earlier sentence dropped) was written blind the same
day by a writer who opened no file of the repository, asked for a broad mix of every kind said as people
say them (exchanges, forwarded lines, typos, code-switching, values first or spaced out) and for
look-alikes holding a number, a reference or a credential word that is no secret; measured once on main
before the next change: 79 of 90 secrets refused, 77 named, 3 of 89 look-alikes refused. Its rows were
then shown once, in a diff read before landing: like fresh7, it stays out of training but is no longer
blind. fresh15 (10 + 10 per language) was written blind after that, the same day, by a writer who opened
no file of the repository, asked for every kind said in voice notes, reminders, lists and threads (the
value often mid-sentence, the thing named loosely) and for look-alikes holding a number, a reference or a
credential word that is no secret (a code said to have expired among them); measured once on main
before the next change: 75 of 90 secrets refused, 71 named, 3 of 90 look-alikes refused. fresh16 (10 +
10 per language) was written blind after it, the same day, by a writer who opened no file of the
repository, asked for every kind in voice notes, forwarded lines, lists and threads (typos, code-switching,
the thing named loosely) and for look-alikes of the same sort; measured once on main before the next
change: 76 of 90 secrets refused, 71 named, 2 of 90 look-alikes refused. Leave the rows of both unread.
The next change made fresh4 to fresh14 part of what the model learns from (`BLIND` is the halves not yet
learned from), so their figures here are no longer held out; each held out in turn, the model trained on
the ten others, they went from 902 to 911 of 990 refused (873 to 882 named, look-alikes 12 to 8 of 982),
and measured once, fresh15 from 75 to 75 refused (71 to 71 named, look-alikes 3 to 0) and fresh16 from 76
to 77 (71 to 73 named, look-alikes 2 to 2). fresh17 (10 + 10 per language; one look-alike repeating an
earlier sentence dropped) was written blind after that, the same day, by a writer who opened no file of
the repository, asked for passphrases of ordinary words given every way people give one (after "is", a
colon, in quotes, as a list, as an answer) and for look-alikes holding a number, a credential word or a
few words in quotes (a proverb, a song); measured once on that model before the next change: 76 of 90
secrets refused, 72 named, 4 of 89 look-alikes refused. Measured once on the next change, phrases of
plain words read by the model (docs/secrets.md): 83 refused, 79 named, 4 look-alikes refused. fresh18 (10
+ 10 per language; three look-alikes repeating earlier sentences dropped) was written blind after that
change, the same day, by a writer who opened no file of the repository, asked for every kind as people
write to or through an assistant and for look-alikes that talk about a PIN or a passphrase without giving
it; measured once on main: 73 of 90 secrets refused, 71 named, 1 of 87 look-alikes refused. Measured once on
the next change, the model learning from fresh15 to fresh17 too and phrases refused from 0.85: 78 refused, 75
named, no look-alike refused. fresh19 and fresh20 (10 + 10 per language; one look-alike of fresh19 repeating an
earlier sentence dropped) were written blind after that change, the same day, each by a writer who opened no
file of the repository: fresh19 asked for messages dictated to an assistant or forwarded to family (values
first, spaced or split, answers to a question, relayed speech), fresh20 for what an agent notes about its
owner's day in the owner's language (regional words, abbreviations), both with look-alikes holding numbers,
codes or credential words that are no secret; measured once on main: fresh19 78 of 90 secrets refused, 57
named, 2 of 89 look-alikes refused; fresh20 87 refused, 67 named, 0 of 90. Their writers gave a bank login's
value as the login and its password together, and recovery codes and seed phrases whole, which a finding of
the password alone does not cover: none of their 18 bank logins is counted named. fresh19 then measured a
change once (values said before their names read: 81 refused, 60 named, 2 look-alikes refused) that was
reverted, since it refused a log line's opening host name; it is spent. Leave the rows of both unread.
fresh21 and fresh22 (10 + 10 per language) were written blind the next day, each by a writer who opened no
file of the repository: fresh21 asked for what people paste or forward into a chat with their assistant,
fresh22 for an owner's hurried messages, about half giving the value first, both with look-alikes holding
numbers, codes or credential words that are no secret and a bank login's value as its password alone;
measured once on main: fresh21 78 of 90 refused, 76 named, 0 of 90 look-alikes refused; fresh22 46 refused,
45 named, 0 of 90. Leave their rows unread. fresh20 then measured the next change once (values read before their
names, fresh18 and fresh19 learned from, tokens from 0.80 and phrases from 0.65: docs/secrets.md): 88 of 90
refused, 67 named, 0 of 90 look-alikes refused; it is spent. fresh23 and fresh24 (10 + 10 per language;
three and one look-alikes repeating earlier sentences dropped) were written blind later that day, each by a
writer who opened no file of the repository: fresh23 asked for a mix of an owner's chats with values before
and after their names and look-alikes holding a number right after a word for "code", fresh24 for a busy
household's week; measured once on that model: fresh23 89 of 90 refused, 87 named, 1 of 87 look-alikes
refused; fresh24 85 refused, 83 named, 0 of 89. Leave their rows unread. fresh21 and fresh22 then measured
the next change once (three more writers learned from, phrases from 0.50: docs/secrets.md), the model
before and after read back to back: fresh21 84 -> 84 refused, 82 -> 82 named; fresh22 66 -> 67, 64 -> 65;
look-alikes 0 -> 0 of 90 in both. They are spent. fresh25 and fresh26 (10 + 10 per language) were written
blind after that change, each by a writer who opened no file of the repository: fresh25 asked for what an
agent writes down from its owner's voice notes, fresh26 for group chats and direct messages; measured once
on that model: fresh25 79 of 90 refused, 67 named (its writer gave a bank login's value as login and
password together), 2 of 90 look-alikes refused; fresh26 90 refused, 81 named, 0 of 90. Leave their rows
unread. fresh23 and fresh24 then measured a change once that did not land (the model learning from fresh20
to fresh22, tokens from 0.85: docs/secrets.md): fresh23 89 -> 89 refused, 87 -> 87 named, look-alikes 1 ->
1; fresh24 86 -> 85, 83 -> 83, 0 -> 0. They are spent. fresh26's Arabic, Hebrew and English rows were shown
once in a diff read before landing: it is no longer blind; fresh25 is. fresh27 and fresh28 (10 + 10 per
language) were written blind on 2026-12-07, each by a writer who opened no file of the repository: fresh27
asked for an owner setting up a new flat and its accounts over a weekend, fresh28 for instructions left to
someone looking after the home or the children; measured once on that model: fresh27 78 of 90 refused, 75
named, 1 of 90 look-alikes refused; fresh28 83 refused, 77 named, 1 of 90. Leave their rows unread.
fresh25 then measured the next change once (phrases read in more places: after a spaced colon and an
equals sign, a list of words whole, the words that open a clause before a colon, a dash or "is"): 79 -> 80
refused, 67 -> 68 named, look-alikes 2 -> 2 of 90. It is spent. fresh27 then measured a change once that did
not land (a writer of passphrases said first learned from: docs/secrets.md): 79 -> 78 refused, 76 -> 74
named, look-alikes 1 -> 1. It is spent. fresh28 then measured the next change once (digits said as words read
as digits): 83 -> 83 refused, 77 -> 77 named, look-alikes 1 -> 1. It is spent.
fresh29 and fresh30 (10 + 10 per language; three rows of fresh29 repeating earlier sentences dropped) were
written blind after that change, the same day, each by a writer who opened no file of the repository:
fresh29 asked for an owner's hurried messages, about a third giving the value before its name, fresh30 for
notes and lists an agent keeps (handover notes, trip checklists, relayed lines, transcribed voice notes);
measured once on that model: fresh29 85 of 89 refused, 81 named, 0 of 88 look-alikes refused; fresh30 89
of 90 refused, 81 named, 0 of 90. They then measured a change once that did not land (the tables' words
as features of the model: docs/secrets.md): fresh29 85 -> 83 refused, 81 -> 80 named, fresh30 89 -> 87
refused, 81 -> 82 named, look-alikes 0 -> 0 both. They are spent.
fresh31 and fresh32 (10 + 10 per language) were written blind after that, the same day, each by a writer
who opened no file of the repository: fresh31 asked for an owner dictating to an assistant across a day,
transcribed as speech-to-text gives it (fillers, self-corrections, values said first or as words),
fresh32 for what someone else said, passed on (relayed lines, forwarded messages, a reply giving the value
asked for, a shared list). None repeated a sentence of the labelled set, the training set or the English
corpus. Measured once on that model: fresh31 73 of 90 refused, 61 named, 0 of 90 look-alikes refused;
fresh32 87 refused, 80 named, 0 of 90. Then once on a change that cannot move what is refused (a list of
backup codes found whole): the same numbers. Then once on a passphrase read in part found to the end of
its clause, which cannot move what is refused either: named 61 -> 63 and 80 -> 84. Leave their rows
unread.

A secret counts as refused when any finding is made, and as named when a finding of the row's kind
covers its value (what the refusal names, and what redacting replaces). A look-alike refused is a
false refusal. The cost is what find_secrets takes on an event's text, the work screening does per
event (it runs on every event twice, in the API and in the worker), averaged over the set's texts
and over ordinary chat memories (benchmarks.common); the best of several rounds of CPU time, so that
it measures the code rather than a busy machine.
"""

from __future__ import annotations

import argparse
import json
import time
import timeit
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks.common import chat_memories
from hub.secrets import find_secrets
from training.secret_detector import BLIND

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "secrets_i18n.jsonl"
# The benchmarks' own memories and pairs: a few hold real secrets (the pair data's), the rest none.
PROJECT_DATA = Path(__file__).resolve().parent / "data"


def load(path: Path = DATA) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def splits(rows: list[dict[str, Any]]) -> list[str]:
    """The set's halves in the order they were written (each appended after the last)."""
    return list(dict.fromkeys(row["split"] for row in rows))


# A wallet's seed phrase is named as one: the set labels it a passphrase or recovery codes.
SEED_PHRASE_IS = frozenset({"passphrase", "recovery_codes"})


def named(row: dict[str, Any]) -> bool:
    """Whether a finding of the row's kind covers the row's value."""
    start = row["text"].index(row["value"])
    end = start + len(row["value"])
    return any(
        (f.kind == row["kind"] or (f.kind == "seed_phrase" and row["kind"] in SEED_PHRASE_IS))
        and f.start <= start
        and f.end >= end
        for f in find_secrets(row["text"], said=True)
    )


def tally(rows: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, int]]:
    """Per (language, split): secrets, refused, named; look-alikes, falsely refused."""
    counts: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for row in rows:
        count = counts[row["lang"], row["split"]]
        refused = bool(find_secrets(row["text"], said=True))
        if row["label"] == "secret":
            count["secrets"] += 1
            count["refused"] += refused
            count["named"] += refused and named(row)
        else:
            count["lookalikes"] += 1
            count["false"] += refused
    return counts


def report(rows: list[dict[str, Any]]) -> None:
    counts = tally(rows)
    languages = list(dict.fromkeys(row["lang"] for row in rows))
    for split in splits(rows):
        print(f"\n{split} half: secrets refused (named with their kind) / look-alikes refused")
        total: dict[str, int] = defaultdict(int)
        for lang in languages:
            count = counts[lang, split]
            for key, value in count.items():
                total[key] += value
            print(f"  {lang:5} {_line(count)}")
        print(f"  {'all':5} {_line(total)}")


def _line(count: dict[str, int]) -> str:
    return (
        f"refused {count['refused']:3}/{count['secrets']:<3} named {count['named']:3}/{count['secrets']:<3}"
        f"  false refusals {count['false']:2}/{count['lookalikes']}"
    )


def errors(rows: list[dict[str, Any]], split: str) -> None:
    print(f"\n{split} half, what it gets wrong:")
    for row in rows:
        if row["split"] != split:
            continue
        found = [(f.kind, row["text"][f.start : f.end]) for f in find_secrets(row["text"], said=True)]
        if row["label"] == "secret" and not named(row):
            print(f"  missed  {row['lang']} {row['what']:13} {row['text']!r} -> {found}")
        elif row["label"] == "not" and found:
            print(f"  refused {row['lang']} {row['what']:13} {row['text']!r} -> {found}")


def project_texts(root: Path = PROJECT_DATA) -> list[str]:
    """Every distinct text of two words or more in the benchmarks' data: each string of its JSON and
    JSONL files, and each line of its markdown files."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.add(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for path in sorted(root.rglob("*")):
        if path.suffix == ".jsonl":
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    walk(json.loads(line))
        elif path.suffix == ".json":
            walk(json.loads(path.read_text(encoding="utf-8")))
        elif path.suffix == ".md":
            found.update(path.read_text(encoding="utf-8").splitlines())
    return sorted(text for text in found if len(text.split()) >= 2)


def project_refusals() -> None:
    texts = project_texts()
    refused = [text for text in texts if find_secrets(text, said=True)]
    print(f"\nbenchmarks/data: {len(refused)} of {len(texts)} texts refused")
    for text in refused:
        print(f"  {text[:160]!r}")


def cost(texts: list[str], rounds: int = 7) -> float:
    """Microseconds of CPU find_secrets takes per text."""

    def once() -> None:
        for text in texts:
            find_secrets(text, said=True)

    best = min(timeit.repeat(once, number=3, repeat=rounds, timer=time.process_time)) / 3
    return best / len(texts) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    rows = load()
    # Listing a blind half's errors would spend it (see above).
    readable = [split for split in splits(rows) if split not in BLIND]
    parser.add_argument("--errors", choices=readable, help="list a half's misses and false refusals")
    parser.add_argument(
        "--project-data",
        action="store_true",
        help="also screen every text of benchmarks/data, listing refusals",
    )
    args = parser.parse_args()
    report(rows)
    if args.errors:
        errors(rows, args.errors)
    if args.project_data:
        project_refusals()
    chat = chat_memories(500)
    print(
        f"\nscreening cost, µs of CPU per event text: {cost([row['text'] for row in rows]):.1f} on the set's"
        f" {len(rows)}, {cost(chat):.1f} on {len(chat)} ordinary chat memories (best of 7)"
    )


if __name__ == "__main__":
    main()
