"""Who or what a statement is about: the owner, a named person, someone's relative, or a thing.

"Dana's parents" is not Dana: it is a relative named *through* Dana (`via`). "Noa's swimming
class" is about Noa; "swimming class" is the attribute and goes to the statement's frame.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from hub.conflicts.judge import lexicon as lx
from hub.conflicts.judge.tokens import Token, canon, is_verb

OWNER = "owner"
SOMEONE = "?"  # a pronoun: a person we cannot name

_EXTENDERS = {"for", "of", "with"}
_PHRASE_END = lx.AUX | lx.PREPOSITIONS | lx.NEGATORS
_STARTERS = lx.OWNER_PRONOUNS | lx.OWNER_POSSESSIVES | {"the", "there", "he", "she", "they", "his", "her"}
_OPENERS = lx.DETERMINERS | lx.OWNER_POSSESSIVES
_NAME_STOP = lx.STOPWORDS | lx.LEADING_SKIP | lx.NEGATORS | set(lx.WEEKDAYS) | set(lx.MONTHS)


@dataclass(frozen=True)
class Subject:
    key: str | None  # OWNER, a name, "dana>parent", SOMEONE, or None for a thing
    via: str | None = None  # the person a relative is named through
    words: frozenset[str] = frozenset()  # a thing's noun phrase, or words that narrow a person's
    shown: str = ""


@dataclass
class SubjectSpan:
    subject: Subject
    span: set[int] = field(default_factory=set)  # tokens that name the subject
    attribute: list[int] = field(default_factory=list)  # "swimming class" in "Noa's swimming class"


def is_name(tok: Token) -> bool:
    if tok.kind != "word" or not tok.cap or tok.low == "i":
        return False
    return tok.low not in _NAME_STOP and tok.low not in lx.CLASS_OF and not is_verb(tok.low)


def _starts_subject(tok: Token) -> bool:
    return tok.kind == "word" and (tok.low in _STARTERS or is_name(tok))


def _start(tokens: Sequence[Token]) -> int:
    """Skip an opening phrase ("On school nights", "Since 2021", "Send") to where the subject begins."""
    first = tokens[0]
    if _starts_subject(first) and first.low not in lx.LEADING_SKIP:
        return 0
    if first.low in lx.LEADING_SKIP:  # an opening phrase often ends at a comma
        for j, tok in enumerate(tokens[:8]):
            if tok.kind == "comma" and j + 1 < len(tokens):
                return j + 1
    return next((j for j in range(1, len(tokens)) if _starts_subject(tokens[j])), 0)


def _noun_phrase(tokens: Sequence[Token], i: int, limit: int = 4) -> list[int]:
    """Indices of a noun phrase starting at i; its first word is taken whatever it looks like."""
    taken: list[int] = []
    j = i
    while j < len(tokens) and len(taken) < limit:
        tok = tokens[j]
        if tok.kind not in ("word", "pair"):
            break
        if taken and (tok.low in _PHRASE_END or is_verb(tok.low) or is_name(tok)):
            break
        if tok.low in ("and", "or"):
            # "mother and father" joins two relatives; any other "and" ends the phrase.
            nxt = tokens[j + 1].low if j + 1 < len(tokens) else ""
            if not (
                taken and canon(tokens[taken[-1]].low) in lx.PERSON_NOUNS and canon(nxt) in lx.PERSON_NOUNS
            ):
                break
        taken.append(j)
        j += 1
    return taken


def _names_at(tokens: Sequence[Token], i: int) -> tuple[list[str], int]:
    """Names from i ("Dana and Netanel", "Tel Aviv") and the index after them."""
    names: list[str] = []
    j = i
    while j < len(tokens) and is_name(tokens[j]):
        start = j
        while j < len(tokens) and is_name(tokens[j]):
            j += 1
        if j - start > 1 and tokens[start].low in lx.KIN_TITLES:
            start += 1  # "Grandma Pat" is Pat
        names.append(" ".join(t.low for t in tokens[start:j]))
        if j + 1 < len(tokens) and tokens[j].low == "and" and is_name(tokens[j + 1]):
            j += 1
            continue
        break
    return names, j


def _relation(tokens: Sequence[Token], phrase: list[int]) -> str | None:
    heads = {canon(tokens[j].low) for j in phrase} & lx.PERSON_NOUNS
    if not phrase or canon(tokens[phrase[-1]].low) not in lx.PERSON_NOUNS:
        return None
    if {"mother", "father"} <= heads:
        return "parent"
    return canon(tokens[phrase[-1]].low)


def _possessed(tokens: Sequence[Token], j: int, possessor: str, thing: list[str], out: SubjectSpan) -> int:
    """Resolve what follows a possessive ("Dana's parents", "Noa's swimming class"); returns the end."""
    phrase = _noun_phrase(tokens, j)
    end = phrase[-1] + 1 if phrase else j
    relation = _relation(tokens, phrase)
    if relation is not None:
        out.span.update(phrase)
        names, after = _names_at(tokens, end)
        if names:  # "Netanel's brother Yoni": Yoni, named through Netanel
            out.span.update(range(end, after))
            out.subject = Subject(names[0], via=possessor, shown=names[0])
            return after
        out.attribute.extend(phrase[:-1])  # "older" in "Dana's older sister"
        key = f"{possessor}>{relation}"
        if end < len(tokens) and tokens[end].kind == "poss":
            out.span.add(end)
            return _possessed(tokens, end + 1, key, [], out)
        out.subject = Subject(key, via=possessor, shown=key)
        return end
    if thing:  # "The car's annual service": a thing of a thing
        out.span.update(phrase)
        words = frozenset(thing) | {canon(tokens[k].low) for k in phrase}
        out.subject = Subject(None, words=words, shown=" ".join(sorted(words)))
        return end
    out.attribute.extend(phrase)
    out.subject = Subject(possessor, shown=possessor)
    return end


def _extension(tokens: Sequence[Token], end: int) -> tuple[list[str], int]:
    """A phrase that narrows the subject: the rent *for our apartment*, dinner *with Dana's parents*."""
    if end + 1 >= len(tokens) or tokens[end].low not in _EXTENDERS:
        return [], end
    nxt = tokens[end + 1]
    if not (nxt.low in _OPENERS or is_name(nxt)):
        return [], end
    words: list[str] = []
    j = end + 1
    while j < len(tokens) and j < end + 7:
        tok = tokens[j]
        if tok.low in lx.AUX or (tok.kind == "word" and is_verb(tok.low) and not tok.cap):
            break
        if tok.low in lx.OWNER_POSSESSIVES:
            words.append(OWNER)
        elif tok.kind == "word" and tok.low not in lx.STOPWORDS:
            words.append(canon(tok.low))
        j += 1
    return words, j


def find_subject(tokens: Sequence[Token]) -> SubjectSpan:
    """The subject of a statement and the tokens that name it."""
    out = SubjectSpan(Subject(None))
    if not tokens:
        return out
    bare = _bare_phrase(tokens)
    i = 0 if bare else _start(tokens)
    if tokens[i].low == "there" and i + 1 < len(tokens) and tokens[i + 1].low in ("is", "are", "was", "were"):
        i += 2
    tok = tokens[i]
    nxt = tokens[i + 1].low if i + 1 < len(tokens) else ""
    end = i + 1
    out.span.add(i)
    if tok.low in lx.OWNER_PRONOUNS:
        out.subject = Subject(OWNER, shown=OWNER)
    elif tok.low in ("he", "she", "they"):
        out.subject = Subject(SOMEONE, shown=tok.low)
    elif tok.low in lx.OWNER_POSSESSIVES | {"his", "her", "their"}:
        possessor = OWNER if tok.low in lx.OWNER_POSSESSIVES else SOMEONE
        end = _possessed(tokens, i + 1, possessor, [], out)
    elif tok.low == "the" and nxt == "owner":
        out.span.add(i + 1)
        end = i + 2
        out.subject = Subject(OWNER, shown=OWNER)
        if end < len(tokens) and tokens[end].kind == "poss":
            out.span.add(end)
            end = _possessed(tokens, end + 1, OWNER, [], out)
    elif bare:
        end = _thing(tokens, 0, out, limit=2)  # "Council tax direct debit is ...": council tax
    elif is_name(tok):
        names, end = _names_at(tokens, i)
        out.span.update(range(i, end))
        key = "+".join(sorted(names))
        out.subject = Subject(key, shown=key)
        if end < len(tokens) and tokens[end].kind == "poss":
            out.span.add(end)
            end = _possessed(tokens, end + 1, key, [], out)
        else:
            end = _skip_apposition(tokens, end, out)
    elif tok.low in lx.DETERMINERS:
        end = _thing(tokens, i + 1, out)
    else:
        return out
    words, after = _extension(tokens, end)
    if words:
        out.span.update(range(end, after))
        s = out.subject
        out.subject = Subject(s.key, s.via, s.words | frozenset(words), f"{s.shown} ({' '.join(words)})")
    return out


def _bare_phrase(tokens: Sequence[Token]) -> bool:
    """A sentence that opens on a noun phrase with no determiner: "Home insurance renewed ...",
    "Household electricity is ...". Its capital is the sentence's, not a name's."""
    second = tokens[1] if len(tokens) > 2 else None
    first = tokens[0]
    if not first.cap or first.kind != "word" or first.low in _NAME_STOP or is_verb(first.low):
        return False
    if second is None or second.cap or second.kind != "word":
        return False
    if second.low in lx.STOPWORDS or second.low in lx.NEGATORS or is_verb(second.low):
        return False
    phrase = _noun_phrase(tokens, 0)
    end = phrase[-1] + 1 if phrase else 0
    return len(phrase) >= 2 and end < len(tokens) and (tokens[end].low in lx.AUX or is_verb(tokens[end].low))


def _skip_apposition(tokens: Sequence[Token], end: int, out: SubjectSpan) -> int:
    """An apposition belongs to the subject: "Bamba, the dog, is ...", "Mitzi the cat is ..."."""
    if end < len(tokens) and tokens[end].kind == "comma":
        close = next(
            (j for j in range(end + 1, min(end + 6, len(tokens))) if tokens[j].kind == "comma"), None
        )
        if close is not None:
            out.span.update(range(end, close + 1))
            return close + 1
    if end + 2 < len(tokens) and tokens[end].low == "the":
        after = tokens[end + 2].low
        if after in lx.AUX or is_verb(after):
            out.span.update({end, end + 1})
            return end + 2
    return end


def _thing(tokens: Sequence[Token], i: int, out: SubjectSpan, limit: int = 4) -> int:
    """A subject opened by a determiner: the rent, the kids' school, the car's annual service."""
    phrase = _noun_phrase(tokens, i, limit)
    out.span.update(phrase)
    end = phrase[-1] + 1 if phrase else i
    words = [canon(tokens[j].low) for j in phrase]
    if words and words[-1] in lx.HOUSEHOLD:  # "the family", "the household": the owner's, as "we" is
        if end < len(tokens) and tokens[end].kind == "poss":
            out.span.add(end)
            return _possessed(tokens, end + 1, OWNER, [], out)
        out.subject = Subject(OWNER, shown=OWNER)
        return end
    if end < len(tokens) and tokens[end].kind == "poss" and phrase:
        out.span.add(end)
        head = words[-1]
        if head in lx.PERSON_NOUNS:  # "the kids' school": the kids are people
            return _possessed(tokens, end + 1, head, [], out)
        return _possessed(tokens, end + 1, "", words, out)
    out.subject = Subject(None, words=frozenset(words), shown=" ".join(words))
    return end
