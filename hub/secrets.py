"""Secret detection: find credentials in memory text, so that the hub never stores them.

Offline: one table of compiled patterns, each with an optional check on what it
matched (a Luhn sum, a JWT header, the randomness of a key) and an optional context that must come
just before it ("twilio", "aws"). Secrets said in words (a password, a passphrase, a PIN, a door
code, a CVV, recovery codes, a bank login) are read in each language of hub.secret_languages, by
rules built from its words, and named as they were said; where no rule finds anything, a model
learned from labelled sentences (`hub.stated_secrets`) reads the ways of saying them that no table
lists. A wallet's seed phrase is read by BIP-39's word lists (`hub.seed_phrases`), whatever names it.
Findings point at the secret value itself, so that redacting keeps the sentence readable.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import string
import urllib.parse
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import stopwordsiso

from hub import secret_extent, seed_phrases, stated_secrets
from hub.secret_languages import LANGUAGES, Language

__all__ = ["LABELS", "SecretError", "SecretFinding", "ensure_no_secrets", "find_secrets", "redact"]

# Every kind of secret find_secrets reports, with how to name it to a person.
LABELS: dict[str, str] = {
    "aws_access_key": "an AWS access key",
    "aws_secret_key": "an AWS secret access key",
    "github_token": "a GitHub token",
    "gitlab_token": "a GitLab token",
    "slack_token": "a Slack token",
    "slack_webhook": "a Slack webhook URL",
    "stripe_key": "a Stripe secret key",
    "anthropic_api_key": "an Anthropic API key",
    "openai_api_key": "an OpenAI API key",
    "google_api_key": "a Google API key",
    "google_oauth_secret": "a Google OAuth client secret",
    "google_oauth_token": "a Google OAuth access token",
    "twilio_key": "a Twilio credential",
    "sendgrid_api_key": "a SendGrid API key",
    "npm_token": "an npm token",
    "pypi_token": "a PyPI token",
    "huggingface_token": "a Hugging Face token",
    "telegram_bot_token": "a Telegram bot token",
    "discord_bot_token": "a Discord bot token",
    "discord_webhook": "a Discord webhook URL",
    "azure_storage_key": "an Azure storage key",
    "azure_client_secret": "an Azure client secret",
    "azure_sas_token": "an Azure SAS token",
    "heroku_api_key": "a Heroku API key",
    "mailgun_api_key": "a Mailgun API key",
    "mailchimp_api_key": "a Mailchimp API key",
    "shopify_token": "a Shopify access token",
    "digitalocean_token": "a DigitalOcean token",
    "databricks_token": "a Databricks token",
    "linear_api_key": "a Linear API key",
    "notion_token": "a Notion integration token",
    "postman_api_key": "a Postman API key",
    "doppler_token": "a Doppler token",
    "square_token": "a Square access token",
    "openrouter_api_key": "an OpenRouter API key",
    "groq_api_key": "a Groq API key",
    "xai_api_key": "an xAI API key",
    "perplexity_api_key": "a Perplexity API key",
    "replicate_token": "a Replicate API token",
    "nvidia_api_key": "an NVIDIA API key",
    "langsmith_api_key": "a LangSmith API key",
    "vault_token": "a HashiCorp Vault token",
    "private_key": "a private key",
    "jwt": "a JSON Web Token",
    "connection_string": "a connection string with a password",
    "basic_auth": "HTTP basic-auth credentials",
    "card_security_code": "a card security code",
    "generic_api_key": "an API key or token",
    "password": "a password",
    "passphrase": "a passphrase",
    "pin": "a PIN",
    "access_code": "an access code",
    "bank_login": "a bank login",
    "recovery_codes": "two-factor backup codes",
    "seed_phrase": "a wallet seed phrase",
    "card_number": "a payment card number",
}


@dataclass(frozen=True)
class SecretFinding:
    """One secret in a text: what it is, and where (text[start:end] is the secret value)."""

    kind: str
    label: str
    start: int
    end: int


class SecretError(ValueError):
    """Text meant for the hub holds a secret; the message names its kinds, never its value."""

    def __init__(self, findings: Sequence[SecretFinding]) -> None:
        self.findings = tuple(findings)
        kinds = dict.fromkeys((f.kind, f.label) for f in self.findings)
        names = [f"{label} ({kind})" for kind, label in kinds]
        listed = " and ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else "".join(names)
        listed = listed or "a secret"
        it = "it" if len(self.findings) == 1 else "them"
        super().__init__(
            f"text contains {listed}; secrets are never stored — remove {it} or send a reference instead"
        )

    def __reduce__(self) -> tuple[type[SecretError], tuple[tuple[SecretFinding, ...]]]:
        # Rebuilt from its findings, not its message, so it survives pickling (worker processes).
        return (SecretError, (self.findings,))


# --- checks on what a pattern matched --------------------------------------------------------------


def _entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _looks_random(value: str, min_entropy: float = 3.0) -> bool:
    # Keys have a long stretch mixing letters and digits; words and numbers joined by separators
    # (your_api_key_here, projects/123/secrets, sk-learn-v2) name things.
    runs = re.split(r"[-_./+~=]", value)
    if not any(len(run) >= 8 and not run.isalpha() and not run.isdigit() for run in runs):
        return False
    return _entropy(value) >= min_entropy


# Values that stand in for a secret, or say where it lives, rather than being one.
_PLACEHOLDER = re.compile(
    r"(?i)^(?:[<$%{\[(].*|[~/][\w.-]*/.*|[a-z][a-z0-9+.-]*://.*|[-–—_.*•?]+|x{3,}|…"
    r"|(?:your|my|the|some)[_-].*|redacted|hidden|masked|placeholder|example|n/?a|none|null|nil|tbd|todo)$"
)
# Words that, after "is", say what a password is like or where it is: every language's, since people mix.
_NOT_PASSWORDS = frozenset(word.casefold() for language in LANGUAGES for word in language.prose.split())
# What follows a value that is really a sentence going on: "is 12 characters long", "Netanel knows it".
_LENGTH_FOLLOWS = re.compile(r"(?i)\s*(?:characters?|chars?|digits?|letters?|symbols?|long|minimum|max)\b")
_WORD = re.compile(r"[^\W\d_]+(?:'s)?")
# A lowercase word a person might choose, and not a state or a quality ("blocked", "working", "useless").
_STATE_ENDINGS = "|".join(sorted({ending for language in LANGUAGES for ending in language.state_endings}))
_PLAIN_WORD = re.compile(rf"(?![a-z]*(?:{_STATE_ENDINGS})$)[a-z]{{4,40}}")
# What closes a clause: its end, punctuation, a line break, an emoji.
_CLAUSE_ENDS = re.compile(r"[ \t]*(?:$|[^\w\s]|\n)")
_ARROW_MARK = re.compile(r"[>→⇒⟶➔➡]")
_ARROW_BEFORE = re.compile(r"(?:-+>|=+>|[→⇒⟶➔➡]\ufe0f?)\s*$")
_ARROW_AFTER = re.compile(r"\s*(?:-+>|=+>|[→⇒⟶➔➡])")
_NEXT_LETTER = re.compile(r" +([^\W\d_])")


def _prose_follows(text: str, end: int) -> bool:
    """Whether a lowercase word follows: the sentence goes on. A letter with no case (Hebrew, Arabic) too."""
    letter = _NEXT_LETTER.match(text, end)
    return letter is not None and not letter.group(1).isupper()


def _secret_group(match: re.Match[str]) -> str | int:
    """The group holding the secret: a named one where the pattern has it, else the whole match."""
    for name in ("quoted", "secret", "bare"):
        if name in match.re.groupindex and match.group(name) is not None:
            return name
    return 0


def _secret_text(match: re.Match[str]) -> str:
    return match.group(_secret_group(match))


def _random(match: re.Match[str]) -> bool:
    return _looks_random(_secret_text(match))


def _random_mixed_case(match: re.Match[str]) -> bool:
    # Base64 secrets of 40 characters practically always mix cases; hex digests (git, sha1) never do.
    value = _secret_text(match)
    return value != value.lower() and value != value.upper() and _entropy(value) >= 4.0


def _b64decode(part: str) -> bytes | None:
    try:
        return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
    except (binascii.Error, ValueError):
        return None


def _jwt_header(match: re.Match[str]) -> bool:
    decoded = _b64decode(match.group().split(".", 1)[0])
    try:
        header = json.loads(decoded) if decoded else None
    except ValueError:
        return False
    return isinstance(header, dict) and "alg" in header


def _discord_user_id(match: re.Match[str]) -> bool:
    # A bot token opens with the bot's numeric user id in base64.
    decoded = _b64decode(match.group().split(".", 1)[0])
    return decoded is not None and decoded.isdigit() and 17 <= len(decoded) <= 20


def _basic_credentials(match: re.Match[str]) -> bool:
    decoded = _b64decode(_secret_text(match).replace("+", "-").replace("/", "_"))
    if decoded is None or not decoded.isascii():
        return False
    user, colon, password = decoded.decode().partition(":")
    return bool(colon and user and password and decoded.decode().isprintable())


def _pem_body(match: re.Match[str]) -> bool:
    body = match.group("body") or match.group("tail") or ""
    return len(re.findall(r"[A-Za-z0-9+/]", body)) >= 32


def _password_beside_login(match: re.Match[str]) -> bool:
    # No "is" or ":" before it: only a value no word could be ("Hunter2xyz", "Zq7#kP2!").
    return len(_secret_text(match)) >= 6 and _password(match)


def _not_placeholder(match: re.Match[str]) -> bool:
    return not _PLACEHOLDER.match(_secret_text(match))


def _query_password(match: re.Match[str]) -> bool:
    # A parameter of its own ("?pw=", "&pass=", "%26pwd%3D"), not the tail of one ("?forgot_password=");
    # outside a query only an encoded "=" marks it ("password%3D...").
    before = match.string[max(0, match.start() - 3) : match.start()].lower()
    in_query = before.endswith(("?", "&", "%26", "%3f"))
    encoded = match.group("sep") != "=" and not (before[-1:].isalnum() or before.endswith("_"))
    if not (in_query or encoded):
        return False
    # Read as the server reads it: "%7Bpassword%7D" is "{password}", a placeholder; "true" is a flag.
    value = urllib.parse.unquote(_secret_text(match))
    return len(value) >= 3 and not _PLACEHOLDER.match(value) and value.casefold() not in _QUERY_NOT_VALUES


# A flag, or the parameter's own name standing in for its value ("?password=PASSWORD").
_QUERY_NOT_VALUES = frozenset(
    {"true", "false", "yes", "off", "null", "none", "password", "passwd", "pwd", "pass"}
)


def _opens_clause(match: re.Match[str]) -> bool:
    # "pass = X" opening a line or after a colon ("Netflix: pass = X"); after a word ("Ski pass = 450")
    # it is a pass of another kind.
    line_start = match.string.rfind("\n", 0, match.start()) + 1
    before = match.string[line_start : match.start()].rstrip(" \t")
    return (not before or before[-1] in ":,;(") and _password_beside_login(match)


def _typed_password(match: re.Match[str]) -> bool:
    # A lowercase word ("user:pass" in a how-to) stands in for one; a password has more in it.
    value = _secret_text(match)
    return not _PLACEHOLDER.match(value) and any(not char.isalpha() or char.isupper() for char in value)


def _password(match: re.Match[str]) -> bool:
    value, text = _secret_text(match), match.string
    if len(value) < 3 or _PLACEHOLDER.match(value) or value.casefold() in _NOT_PASSWORDS:
        return False
    if match.group("quoted") is not None:
        return True
    if _LENGTH_FOLLOWS.match(text, match.end()):
        return False
    if _WORD.fullmatch(value) and _prose_follows(text, match.end()):
        return False
    sep = match.group("sep").strip()
    if sep in (":", "=", ":=", "=>", "："):
        return True
    # An arrow inside a chain is a menu path or a flow ("Security -> Password -> Change"), not a value.
    if _ARROW_MARK.search(sep) and (
        _ARROW_BEFORE.search(text, max(0, match.start() - 8), match.start())
        or _ARROW_AFTER.match(text, match.end())
    ):
        return False
    if any(not char.isalpha() or char.isupper() for char in value):
        return True
    # In prose ("my password is ...") a plain lowercase word is more often the sentence going on, unless
    # it ends the clause ("the router password is bluefish.") and does not read as a state ("leaked").
    # With nothing but a space between ("the wifi password yesterday."), it is never taken.
    return bool(sep and _PLAIN_WORD.fullmatch(value) and _CLAUSE_ENDS.match(text, match.end()))


# --- the patterns ----------------------------------------------------------------------------------


_CONTEXT_WINDOW = 100
_TOKEN_CHARS = frozenset(string.ascii_letters + string.digits + "_-")


@dataclass(frozen=True)
class _Rule:
    kind: str
    pattern: re.Pattern[str]
    check: Callable[[re.Match[str]], bool] | None = None
    context: re.Pattern[str] | None = None  # must occur within _CONTEXT_WINDOW characters before
    # The rule runs only on text holding one of these (lowercase): a cheap filter for patterns that
    # open with no literal, which the regex engine would otherwise try at every position.
    hints: tuple[str, ...] = ()
    standalone: bool = False  # not glued to token characters on its left
    # The rule runs only on text holding a letter of this script (a language's rules on its own text).
    script: re.Pattern[str] | None = None
    # The kind of what it matched, where the words said decide it ("PIN" or "password" of a gate).
    kind_of: Callable[[re.Match[str]], str] | None = None

    def accepts(self, match: re.Match[str]) -> bool:
        text, start = match.string, match.start()
        if self.standalone and start and text[start - 1] in _TOKEN_CHARS:
            return False
        if self.context and not self.context.search(text, max(0, start - _CONTEXT_WINDOW), start):
            return False
        return self.check is None or self.check(match)


# Token patterns open with their literal prefix, so that the engine can skip to it; the left edge is
# checked in accepts(), since a lookbehind in front would disable that skip.
_END = r"(?![A-Za-z0-9_-])"
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


def _token(
    kind: str,
    body: str,
    check: Callable[[re.Match[str]], bool] | None = None,
    context: str | None = None,
    hints: tuple[str, ...] = (),
) -> _Rule:
    context_pattern = re.compile(context) if context else None
    return _Rule(kind, re.compile(body + _END), check, context_pattern, hints, standalone=True)


_KEY_WORDS = (
    r"api[_ -]?key|apikey|api[_ -]?secret|app[_ -]?(?:key|secret)|access[_ -]?(?:key|token)|auth[_ -]?token"
    r"|refresh[_ -]?token|bearer[_ -]?token|secret[_ -]?key|client[_ -]?secret|consumer[_ -]?secret"
    r"|private[_ -]?token|signing[_ -]?key|webhook[_ -]?secret|encryption[_ -]?key|master[_ -]?key"
    r"|token|secret"
)
_ASSIGN = r"\s*(?::=|=>|[:=])\s*"
# Chat separators between a password's name and its value: "password -> hunter2", "pw: → X", "wifi - X".
# Each reads as "is" does: a plain lowercase word after one must end its clause.
_ARROW = r"\s*:?\s*(?:-{1,2}>|={1,2}>|[→⇒⟶➔]|➡\ufe0f?)\s*"
_DASH = r"\s+[-–—]{1,2}\s+"
_IS = (
    r"\s+(?:is|was|est|es|ist|war|é|era|är|er|jest)(?:\s+(?:now|still|set to|changed to|updated to))?"
    r"(?:\s*:\s*|\s+)"
)
# A value: quoted ("...", « ... », „...“, “...”, ‘...’), or the run of characters up to a space, less
# the punctuation that closes a sentence.
_VALUE = (
    r"(?:(?:(?P<q>[\"'`])|(?P<guillemet>«\s?)|(?P<low>„)|(?P<curly>“)|‘)(?P<quoted>[^\n]{1,100}?)"
    r"(?(q)(?P=q)|(?(guillemet)\s?»|(?(low)[“”]|(?(curly)”|’))))"
    r"|(?P<secret>\S{0,99}[^\s.,;:?)\]}>'\"`»“”’،]))"
)
# Chinese, Japanese and Korean write no space around the word ("密码是abc12345", "パスワードは ... です"):
# the value is the run of ASCII after it, as typed on a keyboard, never the sentence going on.
_PASSWORD_WORDS_CJK = r"パスワード|暗証番号|密码|密碼|口令|비밀번호|암호"
_IS_CJK = r"\s*(?:[:=：]|は|是|为|為|는|은)\s*"
_VALUE_CJK = r"(?:(?P<q>[\"'`])(?P<quoted>[^\n]{1,100}?)(?P=q)|(?P<secret>[!-~]{1,98}[^\s.,;:?)\]}>'\"`\x80-\U0010ffff]))"

_NETWORK_WORDS = r"wi-?fi|wlan|wpa2?|wpa3|ssid|router|hotspot|network"
# Near a "pass" or a "key", what makes it a login's or a network's: a user name, an e-mail, a network.
_LOGIN_OR_NETWORK = re.compile(rf"(?i)\b(?:user(?:name)?|login|e-?mail|{_NETWORK_WORDS})\b|@")

# Between a list's name and its items ("seed phrase is\n"), and between items.
_CODES_LEAD = (
    r"[^\n:=]{0,30}?(?:\s*[:=]\s*|\s+(?:is|are|was|were)(?:\s*:\s*|\s+)|\s*\n\s*)"
    r"[\"'`]?(?:(?:[-*•]|\d{1,2}[.)])\s+)?"
)
_LIST_GAP = r"(?:[\s,;]+(?:(?:[-*•]|\d{1,2}[.)])\s+)?(?:and\s+)?)"
# One two-factor backup code: "8492 1047", "a1b2c-3d4e5", "Xk29fLq0"; each has a digit.
_CODE = (
    r"(?=[A-Za-z-]*[0-9])(?:[0-9]{4} [0-9]{4}|[A-Za-z0-9]{3,12}(?:-[A-Za-z0-9]{3,12}){1,3}|[A-Za-z0-9]{6,16})"
    r"(?![A-Za-z0-9-])"
)

# --- secrets said in words, in each language of hub.secret_languages --------------------------------
#
# Each language gets the same rules, built from its words: a password or a PIN named and then given
# ("La contraseña del correo es Girasol#88", "ПИН-код карты 4821"), a code named with what it opens
# ("le code de la porte est 7391", "Türcode: 4711"), a card's security code, recovery codes. A name is
# followed by what it is of (the language's "of", or for a language that says it with a case ending,
# a few words), then by how the language says "is", or nothing before a number.


def _phrase(phrase: str, glue: str) -> str:
    """One phrase of the table as a pattern (see hub.secret_languages for what `*`, `-` and `'` mean)."""
    words = []
    for position, word in enumerate(phrase.split()):
        core = re.escape(word.strip("*")).replace("'", "['’]").replace(r"\-", r"[-\s]?")
        # A `*` in front of the first word lets it be glued to a word before it: _words() sees to that.
        start = r"\w*" if word.startswith("*") and position else glue
        # Any ending, hyphenated parts included ("coffre-fort", "интернет-банка").
        words.append(start + core + (r"\w*(?:-\w+)*" if word.endswith("*") else ""))
    return r"\s+".join(words)


def _alternatives(phrases: Iterable[str], glue: str = "") -> str:
    # Longest first, so that "frase de contraseña" is taken whole before "contraseña".
    return "|".join(_phrase(p, glue) for p in sorted(set(phrases), key=len, reverse=True))


def _words(phrases: Iterable[str], glue: str = "", *, whole: bool = True, inside: bool = False) -> str:
    """The phrases as words: no letter or digit glued on the left unless the phrase opens with `*` (then,
    `inside` a pattern, the word it is glued to is taken too), nor on the right (an apostrophe ends a
    word: "dell'"), unless not `whole` ("Tür" in "Türcode")."""
    chosen = sorted(set(phrases), key=len, reverse=True)

    def one(phrase: str) -> str:
        ends = whole and not phrase.endswith("'")
        return _phrase(phrase, glue) + (r"(?![^\W_])" if ends else "")

    alone = "|".join(one(p) for p in chosen if not p.startswith("*"))
    glued = "|".join((r"\w*" if inside else "") + one(p) for p in chosen if p.startswith("*"))
    parts = ([rf"(?<![^\W_])(?:{alone})"] if alone else []) + ([f"(?:{glued})"] if glued else [])
    return "(?:" + "|".join(parts) + ")"


def _opening(*groups: Iterable[str], glue: str = "") -> str:
    """A lookahead for the first letters a rule's names can open with (either case, or a prefix glued to
    them): with it the regex engine skips to where a name can start, several times faster than trying a
    case-insensitive alternation at every position."""
    letters = {char for char in glue if not char.isascii()}
    for group in groups:
        for phrase in group:
            first = phrase.lstrip("*")[:1]
            letters |= {first.lower(), first.upper()}
    return "(?=[" + "".join(re.escape(char) for char in sorted(letters)) + "])"


def _trie(words: Iterable[str]) -> str:
    """An alternation of words as a trie ("pa(?:ss|rola)"): the engine tries each letter once."""
    root: dict[str, Any] = {}
    for word in words:
        node = root
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def branch(node: dict[str, Any]) -> str:
        alternatives = [re.escape(char) + branch(child) for char, child in sorted(node.items()) if char]
        if not alternatives:
            return ""
        body = alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"
        return f"(?:{body})?" if "" in node else body

    return branch(root)


def _hints(*groups: Iterable[str]) -> tuple[str, ...]:
    """A literal piece of each phrase, lowercased: a rule runs only on text holding one. The shortest of
    three letters or more, as it is the one most phrases share ("code" in "code de sécurité")."""
    hints = set()
    for phrase in (phrase for group in groups for phrase in group):
        pieces = sorted(re.split(r"[\s\-'*]+", phrase.lower()), key=len)
        hints.add(next((piece for piece in pieces if len(piece) >= 3), pieces[-1]))
    return tuple(sorted(hints))


@dataclass(frozen=True)
class _Speech:
    """One language's patterns: what stands between a name and its value, and what reads as "is"."""

    language: Language
    qualifier: str  # what the name is of: "de la tarjeta", "for the router", "от вайфая"
    wordy_qualifier: str  # the same, with at least one word
    joined: str  # between "code" and what it opens: "de la", "für die", "של"
    is_: str  # "is", a colon, a dash, an arrow
    copula: str  # "is" alone, in words
    lead: str  # between a list's name and its items
    list_gap: str  # between items of a list
    script: re.Pattern[str] | None  # a letter of the language's own script, where it has one
    free: str  # a few words before a colon or a dash that no "of" accounts for


def _speech(language: Language) -> _Speech:
    glue = language.prefixes
    if language.free_words:
        word = r"\s+(?![-–—])[^\s.:=;,!?]{1,20}"
        # A preposition before a word does not count as one: "от Wi-Fi на даче", "של כרטיס האשראי".
        if language.of:
            word = rf"(?:\s+{_words(language.of, glue)})?{word}"
        qualifier = rf"(?P<qual>(?:{word}){{0,{language.free_words}}}?)"
        wordy = rf"(?P<qual>(?:{word}){{1,{language.free_words}}}?)"
        joined = rf"(?:\s+{_words(language.of, glue)})?(?:{word})?" if language.of else f"(?:{word})?"
    else:
        of_word = _words(language.of) if language.of else "(?!)"
        # "carte bleue", "contraseña wifi": one word, not "of" ("de la tarjeta" is a qualifier) nor "is".
        not_after = "|".join(
            _words(words) for words in (language.of, language.copulas, language.now) if words
        )
        word_after = (
            rf"(?P<word_after>\s+(?!{not_after})[^\W\d_]{{2,20}}(?![^\W_]))?" if language.words_after else ""
        )
        after = rf"(?:\s+{_words(language.after)})?" if language.after else ""
        of = rf"\s+{of_word}(?:\s+|(?<=['’]))[^\n.:=;,!?]{{1,40}}?" if language.of else ""
        qualifier = rf"(?P<qual>{word_after}{after}(?:{of})?)" if of else rf"(?P<qual>{word_after}{after})"
        wordy = rf"(?P<qual>{after}{of})" if of else r"(?P<qual>(?!))"
        # "code de la porte", "código para abrir el portal", "code to get into the building".
        joins = language.of + language.opens
        joined = rf"(?:\s+{_words(joins)}){{0,3}}" if joins else ""
    now = rf"(?:\s+{_words(language.now)})?" if language.now else ""
    copulas = _words(language.copulas, glue) if language.copulas else "(?!)"
    said_is = rf"(?:\s+[-–—]{{1,2}}\s*|\s*[–—]\s*|,?\s+){copulas}{now}"
    # "is" before the other separators: "пароль — это X" is a dash and then "is".
    is_ = rf"{now}(?:{said_is}(?:\s*[:–—-]\s*|\s+)|{_ARROW}|{_ASSIGN}|{_DASH})"
    copula = rf"{now}{said_is}\s+"
    lead = (
        rf"[^\n:=]{{0,30}}?(?:\s*[:=]\s*|\s+[-–—]\s+|,?\s+{copulas}(?:\s*:\s*|\s+)|\s*\n\s*)"
        r"[\"'`]?(?:(?:[-*•]|\d{1,2}[.)])\s+)?"
    )
    and_words = rf"(?:(?:{_alternatives(language.and_words)})\s*)?" if language.and_words else ""
    list_gap = rf"(?:[\s,;،]+(?:(?:[-*•]|\d{{1,2}}[.)])\s+)?{and_words})"
    script = re.compile(language.script) if language.script else None
    # A few words a name's "of" does not account for, before a colon or a dash: "code du portail chez
    # mamie : 1515A", "Prüfnummer hinten auf der Kreditkarte: 604". Not before "is", where they may name
    # another thing ("the PIN code area is 560001"), nor "is" or "and" among them ("door code was changed
    # and room: 204"); words of letters, so that no number hides among them.
    not_free = _words(language.copulas + language.and_words, glue) if language.copulas else "(?!)"
    free = (
        rf"(?:(?P<free>(?:\s+(?!{not_free})[^\W\d_][^\s\d.:=;,!?#]{{0,19}}){{1,4}}?)"
        r"(?=\s*(?:[:=]|[-–—]|[→⇒])))??"
    )
    return _Speech(language, qualifier, wordy, joined, is_, copula, lead, list_gap, script, free)


_YEAR = re.compile(r"(?:19|20)[0-9]{2}")


def _stated_number(match: re.Match[str]) -> bool:
    # With "is" or a colon the number is the value. With only a space, straight after the name ("PIN 4821")
    # it is too; after words ("код домофона 1234") only where no number stood among them, where it ends its
    # clause, and where it does not read as a year ("ПИН-код поменяла в 2023"), unless it is keyed in with
    # a keypad's star or hash ("code alarme maison 1990* puis valider").
    if match.group("gap") is None or not match.group("qual"):
        return True
    value = match.group("secret")
    return not any(char.isdigit() for char in match.group("qual")) and (
        value[0] in "*#"
        or value[-1] in "*#"
        or (not _YEAR.fullmatch(value) and bool(_CLAUSE_ENDS.match(match.string, match.end())))
    )


def _named_card(card_codes: re.Pattern[str], cards: re.Pattern[str], match: re.Match[str]) -> bool:
    # "CVV" names a card's code; "security code" does so only with a card named ("...of the card").
    head = match.group("head")
    return bool(card_codes.match(head) or cards.search(head)) and _stated_number(match)


def _no_word(value: str) -> bool:
    """A value no word could be: a digit or a symbol in it, or a capital past its first letter."""
    return any(not char.isalpha() or char.isupper() for char in value[1:]) or not value[:1].isalpha()


def _said_password(speech: _Speech, keys: re.Pattern[str] | None, match: re.Match[str]) -> bool:
    if not _password(match):
        return False
    value = _secret_text(match)
    # "La clave del éxito es ...": a key is a password's only with a digit in it.
    if keys is not None and keys.match(match.group("head")) and not any(char.isdigit() for char in value):
        return False
    # "Contraseña cambiada: ayer": after a word following the name, only a value no word could be.
    quoted = match.group("quoted") is not None
    if "word_after" in match.re.groupindex and match.group("word_after") and not (quoted or _no_word(value)):
        return False
    # "Das Passwort ist Pflicht.": where nouns are capitalized, one after "is" is the sentence going on.
    sep = match.group("sep").strip()
    capitalized_word = value[:1].isupper() and value[1:].islower() and value.isalpha()
    return not (
        speech.language.capitalized_nouns and capitalized_word and not quoted and sep not in (":", "=")
    )


def _login_pair(match: re.Match[str]) -> bool:
    # "Bank login is jsmith84 / Barclays!2020": the value after the slash must be no word ("Chase / Citi").
    value = _secret_text(match)
    return _password_beside_login(match) and (match.group("quoted") is not None or _no_word(value))


def _said_beside_login(keys: re.Pattern[str] | None, match: re.Match[str]) -> bool:
    value = _secret_text(match)
    return _password_beside_login(match) and not (
        keys is not None and keys.match(match.group("head")) and not any(char.isdigit() for char in value)
    )


# What ends a passphrase's clause: a line, sentence punctuation, brackets, quotes.
_PHRASE_ENDS = r"\n.,;:!?()\[\]\"«»“”„"
# A passphrase's words, to the end of their clause: letters first, no sentence punctuation inside.
_PHRASE_VALUE = rf"(?P<secret>[^\W\d_][^{_PHRASE_ENDS}]{{0,80}}?)(?=[ \t]*(?:$|[{_PHRASE_ENDS}]))"
_PASSPHRASE_WORDS = (2, 8)  # fewer is a word, more a sentence


def _phrase_of_words(match: re.Match[str]) -> bool:
    words = match.group("secret").split()
    return _PASSPHRASE_WORDS[0] <= len(words) <= _PASSPHRASE_WORDS[1] and not _PLACEHOLDER.match(words[0])


def _said_phrase(code: str) -> str:
    """A passphrase's words after "is": 3 to 8, up to the end of the clause or a function word of the
    language (stopwords-iso's list) or a word for what a password is like, and none of those among them.
    Two words are as often a description ("stored offline")."""
    function = _trie(sorted(stopwordsiso.stopwords(code) | _NOT_PASSWORDS))
    function_word = rf"(?:{function})(?![\w-])"
    end = rf"[^\s{_PHRASE_ENDS}]*"
    first, word = rf"(?!{function_word})[^\W\d_]{end}", rf"(?!{function_word})[^\W_]{end}"
    return (
        rf"(?P<secret>{first}(?:[ \t]+{word}){{2,7}})(?=[ \t]*(?:$|[{_PHRASE_ENDS}])|[ \t]+{function_word})"
    )


def _token_after_words(match: re.Match[str]) -> bool:
    # "пароль от ноутбука qwerty2019": no "is", so only a value no word could be (letters and digits,
    # no e-mail), where it ends its clause (the pattern sees to those), with no number in the words before.
    value = match.group("secret")
    return (
        "@" not in value
        and not _PLACEHOLDER.match(value)
        and not any(c.isdigit() for c in match.group("qual"))
    )


# --- the kind of a secret said in words ---------------------------------------------------------------


@dataclass(frozen=True)
class _Named:
    """Some words of every language: the rule that matched a sentence may be another language's than
    the words in it ("Il PIN del bancomat è 9021" reads as Spanish as well)."""

    hints: re.Pattern[str]  # a piece of each word, lowercased, in a trie: a cheap test that none is there
    words: re.Pattern[str]

    def search(self, text: str) -> bool:
        return self.hints.search(text.lower()) is not None and self.words.search(text) is not None

    def opens(self, text: str) -> bool:
        return self.hints.search(text.lower()) is not None and self.words.match(text) is not None


def _every_language(words: Callable[[Language], tuple[str, ...]]) -> _Named:
    chosen = [language for language in LANGUAGES if words(language)]
    patterns = "|".join(_words(words(language), language.prefixes) for language in chosen)
    hints = _trie(_hints(*(words(language) for language in chosen)))
    return _Named(re.compile(hints), re.compile(f"(?i){patterns}"))


_PASSPHRASES = _every_language(lambda language: language.passphrases)
_CARDS = _every_language(lambda language: language.cards)
_LOCKS = _every_language(lambda language: language.locks)
_BANKS = _every_language(lambda language: language.banks)
# Where the sentence holding a secret opens: what was said of the secret is said after it, and not
# further back than a sentence's length.
_SENTENCE_BREAK = re.compile(r"[.!?;。]\s|\n")
_SENTENCE_LENGTH = 150
# The shapes of a card's PIN and of a door's code: a value named with a card or a lock must have one.
_PIN_VALUE = re.compile(r"\d{4,8}")
_ACCESS_VALUE = re.compile(
    r"[*#]?(?:[A-Z]?\d{3,8}|\d{3,8}[A-Z]|(?=\w{4})\d{1,4}[A-Z]\d{1,4}|\d{1,3}(?:[-–]\d{1,3}){2,3}"
    r"|\d{2}(?: \d{2}){2,3})[*#]?"
)


def _sentence_start(text: str, end: int) -> int:
    """Where the sentence holding text[end] opens."""
    start = max(0, end - _SENTENCE_LENGTH)
    return max((found.end() for found in _SENTENCE_BREAK.finditer(text, start, end)), default=start)


def _bank_or_password(match: re.Match[str]) -> str:
    """A password said in a sentence naming a bank is a bank login."""
    end = match.start(_secret_group(match))
    return (
        "bank_login" if _BANKS.search(match.string[_sentence_start(match.string, end) : end]) else "password"
    )


def _said_kind(kind: str, match: re.Match[str]) -> str:
    """The kind of a secret said in words: the word for it ("PIN", "digicode", "passphrase"), unless what
    it opens says more. A password or a PIN of a card is the card's PIN ("A senha do cartão é 7731");
    anything said of a bank, the card's PIN aside, a bank login ("Onlinebanking: Anmeldename mueller84,
    PIN 61730"); a password or a PIN of a door, a gate or a safe its access code ("A senha do portão é
    7788"). A bank may be named anywhere in the sentence before the value, a card or a lock only with
    the name: in its words or in the two words before it ("his bank card PIN", "the garage door
    passcode"). The value must have the shape of what it is named."""
    text, head, value = match.string, match.group("head"), _secret_text(match)
    start = _sentence_start(text, match.start())
    said = text[start : match.start(_secret_group(match))]
    named = " ".join([*text[start : match.start()].split()[-2:], head])
    if kind == "password" and _PASSPHRASES.opens(head):
        return "passphrase"
    if kind != "access_code" and _PIN_VALUE.fullmatch(value) and _CARDS.search(named):
        return "pin"
    if _BANKS.search(said):
        return "bank_login"
    if kind != "access_code" and _ACCESS_VALUE.fullmatch(value) and _LOCKS.search(named):
        return "access_code"
    return kind


# A number stated: "is 4821", ": 4821", "#4821", or after a space alone.
# (After the few free words below, only a colon or a dash.)
_NUMBER_SEP = r"(?:(?P<sep>{is_}|\s*#\s*)|(?(free)(?!)|(?P<gap>\s+)))"
_PIN = r"(?P<secret>\d{4,8})(?![^\W_])"
# A door's code: digits, perhaps a capital letter among them ("A7391", "4521B", "4B712"), or a
# combination ("12-34-56", "24 36 12"); a keypad's star or hash key before or after is keyed in with it
# ("*1357", "0815#").
_ACCESS_CODE = (
    r"(?P<secret>[*#]?(?:(?-i:[A-Z])\d{3,8}|\d{3,8}(?-i:[A-Z])?|(?=\w{4})\d{1,4}(?-i:[A-Z])\d{1,4}"
    r"|\d{1,3}(?:[-–]\d{1,3}){2,3}|\d{2}(?: \d{2}){2,3}(?! ?\d))(?:[*#](?![^\W_])|(?![^\W_])))"
)
_CARD_CODE = r"(?P<secret>\d{3,4})(?![^\W_])"


def _card_code_rules(speech: _Speech) -> list[_Rule]:
    language, glue = speech.language, speech.language.prefixes
    if not (language.card_codes or language.security_codes):
        return []
    names = _words(language.card_codes + language.security_codes, glue)
    opening = _opening(language.card_codes, language.security_codes, glue=glue)
    pattern = rf"(?i){opening}(?P<head>{names}{speech.qualifier}{speech.free}){_NUMBER_SEP.format(is_=speech.is_)}{_CARD_CODE}"
    card_codes = re.compile(rf"(?i){_words(language.card_codes, glue)}" if language.card_codes else "(?!)")
    cards = re.compile(rf"(?i){_words(language.cards, glue)}" if language.cards else "(?!)")
    check = partial(_named_card, card_codes, cards)
    hints = _hints(language.card_codes, language.security_codes)
    return [_Rule("card_security_code", re.compile(pattern), check, hints=hints, script=speech.script)]


def _recovery_rules(speech: _Speech) -> list[_Rule]:
    language = speech.language
    if not language.recovery:
        return []
    names = _opening(language.recovery, glue=language.prefixes) + _words(language.recovery, language.prefixes)
    # Short numbers listed ("4417 8823 9016") are codes each, before _CODE reads two as one.
    numbers = rf"\d{{4,10}}(?:{speech.list_gap}\d{{4,10}})+(?![\w-])"
    codes = rf"{numbers}|{_CODE}(?:{speech.list_gap}{_CODE})"
    stated = rf"(?i){names}{speech.lead}(?P<secret>{codes}*)"
    # With no "are" or colon, only a list: "codigos de backup do google 5523 1187".
    listed = rf"(?i){names}[^\n:=\d]{{0,30}}?\s(?P<secret>{codes}+)"
    hints = _hints(language.recovery)
    return [
        _Rule("recovery_codes", re.compile(pattern), hints=hints, script=speech.script)
        for pattern in (stated, listed)
    ]


def _pin_rules(speech: _Speech) -> list[_Rule]:
    language, glue = speech.language, speech.language.prefixes
    names = [_words(language.pins, glue)] if language.pins else []
    if language.codes and language.cards:  # "le code de ma carte bleue": a card's PIN
        cards = _words(language.cards, glue, inside=True)
        names.append(rf"{_words(language.codes, glue)}{speech.joined}(?:\s+|(?<=['’])){cards}")
    if not names:
        return []
    opening = _opening(language.pins, language.codes if language.cards else (), glue=glue)
    pattern = (
        rf"(?i){opening}(?P<head>(?:{'|'.join(names)}){speech.qualifier}{speech.free})"
        rf"{_NUMBER_SEP.format(is_=speech.is_)}{_PIN}"
    )
    hints = _hints(language.pins, language.codes if language.cards else ())
    kind_of = partial(_said_kind, "pin")
    return [
        _Rule("pin", re.compile(pattern), _stated_number, hints=hints, script=speech.script, kind_of=kind_of)
    ]


def _access_rules(speech: _Speech) -> list[_Rule]:
    language, glue = speech.language, speech.language.prefixes
    names = [_words(language.access, glue)] if language.access else []
    if language.codes and language.locks:
        codes, locks = _words(language.codes, glue), _words(language.locks, glue, inside=True)
        names.append(rf"{codes}{speech.joined}(?:\s+|(?<=['’])){locks}")  # "code de la porte"
        # "door code", "Türcode", "Alarm-Code": what it opens first, glued or not.
        first = _words(language.locks, glue, whole=False)
        names.append(rf"{first}[ -]?(?:{_alternatives(language.codes)})(?![^\W_])")
        # Where "of" is a construct and an adjective follows it with the article, what a code opens may
        # stand inside its name: "رقم الخزنة السري" (the safe's secret number), "קוד הכספת הסודי".
        if language.free_words and language.prefixes:
            split = [phrase.split() for phrase in language.codes + language.pins if len(phrase.split()) == 2]
            names += [
                rf"{_words([noun], glue)}{speech.joined}\s+{locks}\s+{_words([adjective], glue)}"
                for noun, adjective in split
            ]
    if not names:
        return []
    opening = _opening(language.access, language.codes, language.locks if language.codes else (), glue=glue)
    pattern = (
        rf"(?i){opening}(?P<head>(?:{'|'.join(names)}){speech.qualifier}{speech.free})"
        rf"{_NUMBER_SEP.format(is_=speech.is_)}{_ACCESS_CODE}"
    )
    hints = _hints(language.access, language.codes)
    kind_of = partial(_said_kind, "access_code")
    return [
        _Rule(
            "access_code",
            re.compile(pattern),
            _stated_number,
            hints=hints,
            script=speech.script,
            kind_of=kind_of,
        )
    ]


def _keyed_before(speech: _Speech) -> re.Pattern[str] | None:
    """What a code opens, a few words, and how it is keyed in, up to the number: "per entrare nel palazzo
    digita ", "la puerta del garaje se abre con ", "die Alarmanlage schaltest du mit "."""
    language, glue = speech.language, speech.language.prefixes
    if not (language.locks and (language.keyed or language.with_words)):
        return None
    hows = (("keyed", language.keyed), ("with", language.with_words))
    how = "|".join(rf"(?P<{group}>{_words(verbs, glue)})" for group, verbs in hows if verbs)
    # A few words between, of letters: the verb, who keys it ("de mi madre", "schaltest du").
    words = r"(?:,?\s+[^\W\d_][^\s\d.:;!?]{0,19}){0,5}"
    then = rf"(?:\s+{_words(language.of, glue)})?" if language.of else ""
    codes = rf"(?:\s+{_words(language.codes, glue)})?" if language.codes else ""
    locks = _words(language.locks, glue, inside=True)
    return re.compile(rf"(?i){locks}{words},?\s+(?:{how}){then}{codes}\s+\Z")


def _keyed_rule() -> _Rule:
    """A code keyed in after what it opens, in any language: "per entrare nel palazzo digita 1848", "la
    puerta del garaje se abre con *1357", "die Alarmanlage schaltest du mit 2468 aus". The pattern opens
    with the number, which the engine skips to; the words before it are read only there."""
    befores = [(speech, before) for speech in _SPEECH if (before := _keyed_before(speech))]
    # The last word of each way of keying in ("digita", "mit", "in" of "punch in"): a cheap test of the
    # few words before a number, before any language's pattern is read.
    how = frozenset(
        phrase.split()[-1].casefold()
        for speech, _ in befores
        for phrase in speech.language.keyed + speech.language.with_words
    )
    # After a space: the engine skips from one to the next.
    pattern = re.compile(rf"\s(?P<head>)(?=[*#]?[0-9A-Z]){_ACCESS_CODE}")
    check = partial(_keyed_in, how, befores)
    return _Rule("access_code", pattern, check, kind_of=partial(_said_kind, "access_code"))


def _keyed_in(
    how: frozenset[str], befores: list[tuple[_Speech, re.Pattern[str]]], match: re.Match[str]
) -> bool:
    text, start, value = match.string, match.start("secret"), match.group("secret")
    window = max(0, start - _CONTEXT_WINDOW)
    # The way it is keyed in stands among the three words before it ("mit Code", "marca el"), or, glued to a
    # prefix, is in a script of its own.
    words = text[max(window, start - 40) : start].casefold().split()[-3:]
    if not any(word.strip(",") in how or not word.isascii() for word in words):
        return False
    for speech, before in befores:
        if speech.script is not None and not speech.script.search(text, window, start):
            continue
        said = before.search(text, window, start)
        if said is None:
            continue
        if value[0] in "*#" or value[-1] in "*#":
            return True
        if len(value) < 4:  # "dial 911": a short number keyed in is more often a phone's
            continue
        # After "with", a number going on into the sentence is more often a count ("Gebäude mit 120
        # Wohnungen"): it must end its clause, or go on with "and" or a verb's particle ("mit 2468 aus.").
        # A verb that keys it in says what it is, unless it reads as a year going on.
        language = speech.language
        ends = _CLAUSE_ENDS.match(text, match.end()) or _goes_on(language.and_words, text, match.end())
        ends = ends or _goes_on(language.particles, text, match.end(), at_end=True)
        if ends or (said.groupdict().get("keyed") is not None and not _YEAR.fullmatch(value)):
            return True
    return False


def _goes_on(words: tuple[str, ...], text: str, end: int, *, at_end: bool = False) -> bool:
    if not words:
        return False
    found = re.compile(rf"(?i)\s+{_words(words)}").match(text, end)
    return found is not None and (not at_end or _CLAUSE_ENDS.match(text, found.end()) is not None)


def _password_rules(speech: _Speech) -> list[_Rule]:
    language, glue = speech.language, speech.language.prefixes
    passwords = language.passwords + language.passphrases
    if not (passwords or language.keys):
        return []
    # One alternation, longest first: "frase de contraseña" is a passphrase before "contraseña" is a password.
    names = _opening(passwords, language.keys, glue=glue) + _words(passwords + language.keys, glue)
    keys = re.compile(rf"(?i){_words(language.keys, glue)}") if language.keys else None
    hints = _hints(passwords, language.keys)
    kind_of = partial(_said_kind, "password")
    rules = [
        _Rule(
            "password",
            re.compile(rf"(?i)(?P<head>{names}[\"']?{speech.qualifier})(?P<sep>{speech.is_}){_VALUE}"),
            partial(_said_password, speech, keys),
            hints=hints,
            script=speech.script,
            kind_of=kind_of,
        )
    ]
    if language.passphrases:
        # A passphrase is words: after its name and a colon or a dash, the words to the end of the clause
        # are its value ("frase secreta: tortuga lenta bajo la lluvia."). After "is" the words may say
        # where it is or what it is like ("is written in the blue notebook", "is twelve words long"): they
        # are its value only where none is a function word of the language, so a language with no list
        # of those has no such rule.
        values = [(rf"{_ASSIGN}|{_DASH}", _PHRASE_VALUE)]
        if stopwordsiso.has_lang(language.code):
            values.append((speech.copula, _said_phrase(language.code)))
        phrases = _opening(language.passphrases, glue=glue) + _words(language.passphrases, glue)
        phrase_hints = _hints(language.passphrases)
        rules += [
            _Rule(
                "passphrase",
                re.compile(rf"(?i)(?P<head>{phrases}{speech.qualifier})(?P<sep>{sep}){value}"),
                _phrase_of_words,
                hints=phrase_hints,
                script=speech.script,
            )
            for sep, value in values
        ]
    if language.logins or language.banks:
        # A login and its password pasted side by side: "usuario jgarcia82, contraseña Banco2024!".
        near = re.compile(rf"(?i){_words(language.logins + language.banks, glue)}|@")
        rules.append(
            _Rule(
                "password",
                re.compile(rf"(?i)(?P<head>{names})(?P<sep>\s+){_VALUE}"),
                partial(_said_beside_login, keys),
                near,
                hints=hints,
                script=speech.script,
                kind_of=kind_of,
            )
        )
    if language.free_words:
        # In the pattern, so that a word of the sentence does not hide the value after it.
        value = (
            r"(?P<secret>(?=\S*\d)(?=\S*[^\W\d_])\S{5,99}[^\s.,;:?)\]}>'\"`»“”’،])(?=[ \t]*(?:$|[^\w\s]|\n))"
        )
        pattern = rf"(?i)(?P<head>{names}{speech.wordy_qualifier})(?P<gap>\s+){value}"
        rules.append(
            _Rule(
                "password",
                re.compile(pattern),
                _token_after_words,
                hints=hints,
                script=speech.script,
                kind_of=kind_of,
            )
        )
    return rules


# Every language's names for a password, as the rules for a login pasted with one read them.
_PASSWORD_WORDS = (
    _alternatives(name for language in LANGUAGES for name in language.passwords + language.passphrases)
    + "|pass(?==)"
)


def _login_pair_rule() -> _Rule:
    """A login, then after a slash its password, in any language: "Bank login is jsmith84 / Barclays!2020",
    "usuario: jgarcia / Banco2024!". One rule for all: the value must be no word, so no language's
    grammar is needed to tell it from prose. The pattern opens with the slash, which the engine skips
    to; the login before it is the rule's context, read only where a slash is."""
    logins = [login for language in LANGUAGES for login in language.logins + language.banks]
    copulas = _words(copula for language in LANGUAGES for copula in language.copulas)
    words = r"(?:\s+[^\s.:=;,!?/]{1,20}){0,3}?"
    before = rf"(?i){_words(logins)}{words}(?:{_ASSIGN}|{_DASH}|\s+{copulas}\s+)[^\s/]+\s*\Z"
    label = rf"(?:(?:{_PASSWORD_WORDS})\s*[:=]\s*)?"
    pattern = rf"(?i)(?<![/:])/(?!/)\s*{label}(?P<sep>){_VALUE}"
    return _Rule(
        "password",
        re.compile(pattern),
        _login_pair,
        re.compile(before),
        hints=_hints(logins),
        kind_of=_bank_or_password,
    )


_SPEECH = [_speech(language) for language in LANGUAGES]
_SAID_CARD_CODES = [rule for speech in _SPEECH for rule in _card_code_rules(speech)]
_SAID_SECRETS = [
    rule
    for build in (_recovery_rules, _pin_rules, _access_rules, _password_rules)
    for speech in _SPEECH
    for rule in build(speech)
] + [_login_pair_rule(), _keyed_rule()]

_RULES: tuple[_Rule, ...] = (
    # Providers, by prefix and shape: precise, so they come first and win over the generic rules.
    _token("aws_access_key", r"(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}"),
    _token("github_token", r"(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{60,})"),
    _token(
        "gitlab_token", r"gl(?:pat|dt|rt|ptt|ft|cbt|oas|soat|imt)-[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)*"
    ),
    _token("slack_token", r"(?:xox[abposre]|xapp)-(?=[A-Za-z0-9-]{10})[A-Za-z0-9]++(?:-[A-Za-z0-9]++)++"),
    _token("slack_webhook", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/]{20,}"),
    _token("stripe_key", r"(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{32,})"),
    _token("anthropic_api_key", r"sk-ant-[A-Za-z0-9_-]{32,}"),
    _token("openrouter_api_key", r"sk-or-v1-[a-f0-9]{64}"),
    _token("openai_api_key", r"sk-(?!ant-)[A-Za-z0-9_-]{20,}", _random),
    _token("google_api_key", r"AIza[0-9A-Za-z_-]{35}"),
    _token("google_oauth_secret", r"GOCSPX-[A-Za-z0-9_-]{28}"),
    _token("google_oauth_token", r"ya29\.[0-9A-Za-z_-]{30,}"),
    _token("twilio_key", r"(?:SK|AC)[0-9a-f]{32}", context=r"(?i)twilio", hints=("twilio",)),
    _token(
        "twilio_key",
        r"[0-9a-f]{32}",
        context=r"(?i)twilio\b[^\n]{0,60}?\b(?:auth|token|secret)",
        hints=("twilio",),
    ),
    _token("sendgrid_api_key", r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
    _token("npm_token", r"npm_[A-Za-z0-9]{36}"),
    _token("pypi_token", r"pypi-AgE[A-Za-z0-9_-]{50,}"),
    _token("huggingface_token", r"hf_[A-Za-z0-9]{34,40}", _random_mixed_case),
    # The bot's numeric id, a colon, then the secret: "123456789:AA...".
    _Rule(
        "telegram_bot_token", re.compile(r"(?<![0-9])[0-9]{8,10}:AA[A-Za-z0-9_-]{33}" + _END), hints=(":aa",)
    ),
    _token(
        "discord_bot_token",
        r"[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}",
        _discord_user_id,
    ),
    _token(
        "discord_webhook",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/[A-Za-z0-9_-]{60,}",
    ),
    _Rule(
        "azure_storage_key",
        re.compile(r"(?i)(?:AccountKey|SharedAccessKey)\s*=\s*(?P<secret>[A-Za-z0-9+/]{40,}={0,2})"),
        hints=("accountkey", "sharedaccesskey"),
    ),
    _token("azure_client_secret", r"[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}", hints=("q~",)),
    _Rule(
        "azure_sas_token", re.compile(r"[?&]sig=(?P<secret>[A-Za-z0-9%+/]{30,}(?:%3D|=)*)"), hints=("sig=",)
    ),
    _token("heroku_api_key", r"HRKU-[A-Za-z0-9_-]{20,}"),
    _token(
        "heroku_api_key",
        _UUID,
        context=r"(?i)heroku\b[^\n]{0,40}?\b(?:api|key|token|secret|auth)",
        hints=("heroku",),
    ),
    _token("mailgun_api_key", r"key-[0-9a-f]{32}"),
    _token("mailchimp_api_key", r"[0-9a-f]{32}-us[0-9]{1,2}", hints=("-us",)),
    _token("shopify_token", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    _token("digitalocean_token", r"do[opr]_v1_[a-f0-9]{64}"),
    _token("databricks_token", r"dapi[a-f0-9]{32}(?:-[0-9])?"),
    _token("linear_api_key", r"lin_(?:api|oauth)_[A-Za-z0-9]{40}"),
    _token("notion_token", r"(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{46})", _random),
    _token("postman_api_key", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    _token("doppler_token", r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}"),
    _token("square_token", r"sq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}"),
    # The model providers an agent's developer holds keys for, beside OpenAI and Anthropic.
    _token("groq_api_key", r"gsk_[A-Za-z0-9]{52}", _random),
    _token("xai_api_key", r"xai-[A-Za-z0-9]{80}", _random),
    _token("perplexity_api_key", r"pplx-[A-Za-z0-9]{48}", _random),
    _token("replicate_token", r"r8_[A-Za-z0-9]{37}", _random),
    _token("nvidia_api_key", r"nvapi-[A-Za-z0-9_-]{64}", _random),
    _token("langsmith_api_key", r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}"),
    _token("vault_token", r"hv[sb]\.[A-Za-z0-9_-]{90,300}", _random),
    # Structured secrets, recognised by their shape.
    _Rule(
        "private_key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:(?P<body>[A-Za-z0-9+/=\s:,\\-]*?)-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
            # A key cut short has no END line: take its run of base64 lines, and not the prose after it.
            r"|(?P<tail>(?:(?:\s|\\n)*[A-Za-z0-9+/=]{16,})+))"
        ),
        _pem_body,
    ),
    # The lookbehind after the literal keeps the engine's skip-to-"eyJ" and refuses starts inside a longer
    # run, which would otherwise each scan to its end ("eyJeyJeyJ...").
    _token(
        "jwt",
        r"eyJ(?<![A-Za-z0-9_-]eyJ)[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}",
        _jwt_header,
    ),
    # Any scheme://user:password@host. The lookbehind sits after the literal so the engine can skip to "://".
    _Rule(
        "connection_string",
        re.compile(r"://(?<=[A-Za-z0-9]://)[^\s:/@?#]*:(?P<secret>[^\s@/?#]+)@[^\s/@]+"),
        _not_placeholder,
        hints=("://",),
    ),
    _Rule(
        "connection_string",
        re.compile(
            r"(?i)\b(?:server|data source|host|address|addr)\s*=[^;\n]*;[^\n]{0,300}?"
            r"\b(?:password|pwd)\s*=\s*(?P<secret>[^;\n\"']+)"
        ),
        _not_placeholder,
        hints=("password", "pwd"),
    ),
    _Rule(
        "aws_secret_key",
        re.compile(r"(?<![A-Za-z0-9/+])(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"),
        _random_mixed_case,
        re.compile(r"(?i)\baws|secret.?access"),
        hints=("aws", "secret"),
    ),
    _Rule(
        "basic_auth",
        re.compile(r"(?i)\bbasic\s+(?P<secret>[A-Za-z0-9+/]{8,}={0,2})"),
        _basic_credentials,
        hints=("basic",),
    ),
    # `curl -u user:password`, as curl takes basic-auth credentials.
    _Rule(
        "basic_auth",
        re.compile(r"(?<![\w-])(?:-u|--user)\s+[\"']?[^\s:\"']+:(?P<secret>[^\s\"']{3,})"),
        _typed_password,
        hints=("-u", "--user"),
    ),
    # A card's security code, in each language: "CVV 123", "le cryptogramme de la carte est 462".
    *_SAID_CARD_CODES,
    # Keyword assignments: "api_key=...", "the Datadog token is ...", "Authorization: Bearer ...".
    _Rule(
        "generic_api_key",
        re.compile(
            rf"(?i)(?<![A-Za-z0-9])(?:{_KEY_WORDS})(?:[_-][A-Za-z0-9]+){{0,3}}[\"']?"
            rf"(?:{_ASSIGN}|{_IS}|\s+to\s+)[\"'`]?(?P<secret>[A-Za-z0-9_\-.~+/]{{15,}}[A-Za-z0-9_\-~+/]=*)"
        ),
        _random,
        hints=("key", "token", "secret"),
    ),
    _Rule(
        "generic_api_key",
        re.compile(r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9_\-.~+/]{19,}[A-Za-z0-9_\-~+/]=*)"),
        _random,
        hints=("bearer",),
    ),
    # A password in a URL's query, its "=" perhaps encoded ("&pwd%3Dhunter2"), or the whole URL encoded
    # as in a redirect ("%26password%3D..."): the value ends at the next parameter, "&" or "%26". The
    # pattern opens with the word, so that the engine can skip to a "p"; what stands before is checked.
    _Rule(
        "password",
        re.compile(
            r"(?i)p(?:ass(?:word|wd|phrase|code)?|wd|w)(?P<sep>=|%3D)"
            r"(?P<secret>(?:[^&#\s%]|%(?!26)[0-9A-Fa-f]{2})*(?:[^&#\s%.,;:?)\]}>'\"`]|%(?!26)[0-9A-Fa-f]{2}))"
        ),
        _query_password,
        hints=("=", "%3d"),
    ),
    # Secrets said in words, in each language: recovery codes, PINs, door codes, passwords, bank logins.
    *_SAID_SECRETS,
    # After a login or a network, "pass" is its password ("Wi-Fi: HomeNet, pass: sunflower77"), and after
    # a network "key" is ("WPA key: sunflower77"); elsewhere they are a day pass and a key insight.
    _Rule(
        "password",
        re.compile(rf"(?i)(?<![^\s,;(/])pass(?P<sep>{_ARROW}|\s*[:=]\s*|{_IS}|\s+){_VALUE}"),
        _password_beside_login,
        _LOGIN_OR_NETWORK,
        hints=("pass",),
        kind_of=_bank_or_password,
    ),
    _Rule(
        "password",
        re.compile(rf"(?i)pass(?P<sep>{_ARROW}|\s*=\s*){_VALUE}"),
        _opens_clause,
        hints=("pass",),
        kind_of=_bank_or_password,
    ),
    _Rule(
        "password",
        re.compile(r"(?i)(?<![^\s,;(/])key(?P<sep>\s*:\s*|\s+)" + _VALUE),
        _password_beside_login,
        re.compile(rf"(?i)\b(?:{_NETWORK_WORDS})\b"),
        hints=("key",),
    ),
    _Rule(
        "password",
        re.compile(
            rf"(?i)\b(?:user(?:name)?|login)\s*[:=]\s*[^\s/]+\s*/\s*(?:(?:{_PASSWORD_WORDS})\s*[:=]\s*)?(?P<sep>)"
            + _VALUE
        ),
        _password_beside_login,
        hints=("user", "login"),
        kind_of=_bank_or_password,
    ),
    _Rule(
        "password",
        re.compile(rf"(?:{_PASSWORD_WORDS_CJK})(?P<sep>{_IS_CJK}){_VALUE_CJK}"),
        _password,
        hints=("パスワード", "暗証番号", "密码", "密碼", "口令", "비밀번호", "암호"),
    ),
    # A wallet's 12 to 24 words, after their name: prose that long always has a word of one or two letters.
    _Rule(
        "seed_phrase",
        re.compile(
            rf"(?i:\b(?:(?:seed|recovery|mnemonic|secret|backup|wallet)\s+(?:phrase|words)|mnemonic)\b){_CODES_LEAD}"
            rf"(?P<secret>[a-z]{{3,8}}(?:{_LIST_GAP}[a-z]{{3,8}}){{11,24}})(?![A-Za-z])"
        ),
        hints=("phrase", "words", "mnemonic"),
    ),
)

# --- payment cards ---------------------------------------------------------------------------------

# A run of digit groups; one glued to a word, a phone's "+" or a decimal point is no card ("DE89 3704 ..."),
# nor one glued to letters after it.
_DIGIT_RUN = re.compile(r"[0-9]+(?:[ -][0-9]+)*")
_GLUE = frozenset(string.ascii_letters + string.digits + "_+.,/-")
_CARD_LAYOUTS = ((4, 4, 4, 4, 3), (4, 4, 4, 4), (4, 6, 5), (4, 6, 4))
# A Luhn-valid number after "order" or "tracking" is that, unless a card is named too.
_NOT_CARD_WORDS = re.compile(
    r"(?i)\b(?:order|tracking|invoice|imei|isbn|serial|ticket|booking|reference|ref|iban|phone|tel|id|meeting"
    r"|flight|build|customer|member|account)\b"
)
_CARD_WORDS = re.compile(r"(?i)card|visa|mastercard|amex|credit|debit")


def _luhn(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        digit = int(char) * (2 if position % 2 else 1)
        total += digit - 9 if digit > 9 else digit
    return total % 10 == 0


def _card_brand(digits: str) -> bool:
    """Whether the number opens with a card network's prefix and has that network's length."""
    n, p2, p3, p4 = len(digits), int(digits[:2]), int(digits[:3]), int(digits[:4])
    if digits[0] == "4":  # Visa
        return n in (13, 16, 19)
    if 51 <= p2 <= 55 or 2221 <= p4 <= 2720:  # Mastercard
        return n == 16
    if p2 in (34, 37):  # American Express
        return n == 15
    if 300 <= p3 <= 305 or p2 in (36, 38, 39):  # Diners Club
        return 14 <= n <= 19
    # Discover, JCB, UnionPay, Maestro
    return (
        p4 == 6011 or p2 in (65, 62, 50, 56, 57, 58, 63, 67) or 644 <= p3 <= 649 or 3528 <= p4 <= 3589
    ) and (16 <= n <= 19 or (p2 in (50, 56, 57, 58, 63, 67) and n >= 13))


def _find_cards(text: str) -> Iterator[tuple[int, int]]:
    for run in _DIGIT_RUN.finditer(text):
        if len(run.group()) < 13 or (run.start() and text[run.start() - 1] in _GLUE):
            continue
        groups = re.split("[ -]", run.group())
        layouts = [groups[:1]] + [groups[: len(shape)] for shape in _CARD_LAYOUTS]
        for candidate in layouts:
            digits = "".join(candidate)
            shape_ok = len(candidate) == 1 or tuple(map(len, candidate)) in _CARD_LAYOUTS
            # Each separator is one character, so the candidate's length is its groups plus gaps.
            end = run.start() + len(digits) + len(candidate) - 1
            # Glued to letters after it, the digits are part of a word: "4622986838164bbbab9..." (a UUID).
            glued = end < len(text) and (text[end].isalpha() or text[end] == "_")
            if 13 <= len(digits) <= 19 and shape_ok and not glued and _card_brand(digits) and _luhn(digits):
                before = text[max(0, run.start() - 40) : run.start()]
                if _CARD_WORDS.search(before) or not _NOT_CARD_WORDS.search(before):
                    yield run.start(), end
                break


# --- the public functions --------------------------------------------------------------------------


# Characters that show as nothing: a zero-width space pasted from a chat app, a soft hyphen, a direction
# mark. One inside a key splits it so that no rule matches ("ghp_a1B2\u200bc3D4..."), so they are taken
# out before matching, and each finding is mapped back to the characters it covers in the text given.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]"
)


def find_secrets(text: str, *, said: bool = False) -> list[SecretFinding]:
    """Every secret in text, in order; where two rules claim the same characters the more specific wins.

    `said`: the text is something a person said or wrote (a memory's text, its context, a note), so a
    secret said in a way no rule lists is read by the model too (`hub.stated_secrets`); ids, sources,
    names and other fields are read by the rules alone.
    """
    if not _INVISIBLE.search(text):
        return _find_secrets(text, prose=said)
    kept = [i for i, char in enumerate(text) if not _INVISIBLE.match(char)]
    return [
        SecretFinding(f.kind, f.label, kept[f.start], kept[f.end - 1] + 1)
        for f in _find_secrets("".join(text[i] for i in kept), prose=said)
    ]


# A secret base64-encoded, as in a Kubernetes secret or a Docker config ("c2stcHJvai1..." is "sk-proj-..."):
# a long run of base64 that decodes to text is searched as text, one level deep.
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_-]{24,}={0,2}")
_TEXT_BYTES = frozenset(range(32, 127)) | {9, 10, 13}


def _find_encoded(text: str) -> Iterator[tuple[int, int, str]]:
    for run in _BASE64_RUN.finditer(text):
        decoded = _b64decode(run.group().rstrip("=").replace("+", "-").replace("/", "_"))
        if decoded and all(byte in _TEXT_BYTES for byte in decoded):
            found = _find_secrets(decoded.decode("ascii"), decode=False)
            if found:
                yield run.start(), run.end(), found[0].kind


# Every rule's hints, found in one pass over the text rather than tested rule by rule, which cost more
# than the rules themselves once every language had its own. Only the hints holding no other are
# looked for; a rule runs where one inside any of its hints is ("pass" for "passwort"): a little more
# often than its own hints would say, never less.
_ALL_HINTS = {hint for rule in _RULES for hint in rule.hints}
_LEAST_HINTS = sorted(
    hint for hint in _ALL_HINTS if not any(other != hint and other in hint for other in _ALL_HINTS)
)
_HINT_FINDER = re.compile("(?=(" + _trie(_LEAST_HINTS) + "))")
_UNHINTED = [priority for priority, rule in enumerate(_RULES) if not rule.hints]
_RULES_BY_HINT: dict[str, list[int]] = {hint: [] for hint in _LEAST_HINTS}
for _priority, _rule in enumerate(_RULES):
    for _least in {next(least for least in _LEAST_HINTS if least in hint) for hint in _rule.hints}:
        _RULES_BY_HINT[_least].append(_priority)


def _rules_for(text: str) -> set[int]:
    """The rules worth running on text: those with no hints, and those with one in it."""
    chosen = set(_UNHINTED)
    for hint in set(_HINT_FINDER.findall(text.lower())):
        chosen.update(_RULES_BY_HINT[hint])
    return chosen


def _find_secrets(text: str, *, decode: bool = True, prose: bool = False) -> list[SecretFinding]:
    claims: list[tuple[int, int, int, str]] = []  # (priority, start, end, kind): earlier rules are surer
    # For rules whose kind the words said decide, how to read it: only for the claims kept.
    said: dict[tuple[int, int, int], Callable[[], str]] = {}
    scripts: dict[re.Pattern[str], bool] = {}
    for priority in _rules_for(text):
        rule = _RULES[priority]
        if rule.script is not None:
            if rule.script not in scripts:
                scripts[rule.script] = rule.script.search(text) is not None
            if not scripts[rule.script]:
                continue
        for match in rule.pattern.finditer(text):
            if rule.accepts(match):
                start, end = match.span(_secret_group(match))
                claims.append((priority, start, end, rule.kind))
                if rule.kind_of:
                    said[priority, start, end] = partial(rule.kind_of, match)
    claims.extend((len(_RULES), start, end, "card_number") for start, end in _find_cards(text))
    claims.extend((len(_RULES), start, end, "seed_phrase") for start, end in seed_phrases.find(text))
    if decode:  # last: a rule that knows the encoded run itself (a key, a JWT) names it better
        claims.extend((len(_RULES) + 1, start, end, kind) for start, end, kind in _find_encoded(text))
    if prose and decode and not claims:
        # A second reader where no rule found anything: the model, for the ways of saying a secret
        # that no table lists. Where a rule did, its findings stand alone, as it named them.
        claims.extend(
            (0, start, end, kind)
            for start, end, kind in stated_secrets.model().find(text)
            if not _PLACEHOLDER.match(text[start:end]) and not _YEAR.fullmatch(text[start:end])
        )
    kept: list[tuple[int, int, int, str]] = []
    for claim in sorted(claims):
        if all(claim[2] <= other[1] or claim[1] >= other[2] for other in kept):
            kind_of = said.get(claim[:3])
            kept.append((*claim[:3], kind_of()) if kind_of else claim)
    return [
        SecretFinding(kind, LABELS[kind], start, end)
        for start, end, kind in secret_extent.whole(text, sorted((c[1], c[2], c[3]) for c in kept))
    ]


def redact(text: str, findings: Iterable[SecretFinding] | None = None, *, said: bool = False) -> str:
    """The text with each secret replaced by [REDACTED:<kind>] (`said`: as `find_secrets`)."""
    chosen = find_secrets(text, said=said) if findings is None else list(findings)
    parts: list[str] = []
    position = 0
    for finding in sorted(chosen, key=lambda f: f.start):
        if finding.start < position:  # overlaps one already replaced
            continue
        parts += [text[position : finding.start], f"[REDACTED:{finding.kind}]"]
        position = finding.end
    parts.append(text[position:])
    return "".join(parts)


def ensure_no_secrets(text: str, *, said: bool = False) -> None:
    """Raise SecretError naming the kinds of secret in text, if there are any (`said`: as `find_secrets`)."""
    findings = find_secrets(text, said=said)
    if findings:
        raise SecretError(findings)
