"""Secret detection: find credentials in memory text, so that the hub never stores them.

Offline and pure Python: one table of compiled patterns, each with an optional check on what it
matched (a Luhn sum, a JWT header, the randomness of a key) and an optional context that must come
just before it ("twilio", "aws"). Findings point at the secret value itself, so that redacting keeps
the sentence around it readable.
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
_PROSE_WORDS = """
    the a an my your his her their our its this that same different required incorrect wrong correct
    invalid valid expired expiring changed reset set stored saved kept managed shared written printed in on
    at for to of with from by not no none empty blank unknown unchanged secret encrypted hashed protected
    weak strong long short too very still now being been also only just and or but case-sensitive needed
    necessary optional mandatory missing forgotten lost known provided given below above attached here
    there somewhere elsewhere inside please see check ask use via yes true false ok fine easy hard simple
    complex complicated based taped sent rotated updated generated random temporary new old default min max
    minimum maximum least most 1password bitwarden lastpass keepass keepassxc keychain vault dashlane
    mine yours ours hers theirs something nothing anything whatever what which gone broken stolen taken
    chosen frozen good bad better worse best worst right okay nice cool great terrible awful horrible
    cute funny silly stupid dumb lame clever smart tricky weird strange crazy odd secure insecure safe unsafe
    unique common rare basic standard normal typical trivial real fake fresh final public private
    personal important obvious unclear ready closed open
    falsch richtig faux correcte incorrecte correcta incorrecta correcto incorrecto errada correta fraca
    forte sicher unsicher abgelaufen vergessen gesperrt fel feil
    ראה ראו בדוק בדקו שאל שאלי אצל כמו בכספת במנהל אין ללא חדשה ישנה זהה שונה שמורה נמצאת"""
_NOT_PASSWORDS = frozenset(_PROSE_WORDS.split())
# What follows a value that is really a sentence going on: "is 12 characters long", "Netanel knows it".
_LENGTH_FOLLOWS = re.compile(r"(?i)\s*(?:characters?|chars?|digits?|letters?|symbols?|long|minimum|max)\b")
_WORD = re.compile(r"[^\W\d_]+(?:'s)?")
# A lowercase word a person might choose, and not a state or a quality ("blocked", "working", "useless").
_PLAIN_WORD = re.compile(r"(?![a-z]*(?:ed|ing|able|ible|ous|ful|less|tive|sive|ent)$)[a-z]{4,40}")
# What closes a clause: its end, punctuation, a line break, an emoji.
_CLAUSE_ENDS = re.compile(r"[ \t]*(?:$|[^\w\s]|\n)")
_ARROW_MARK = re.compile(r"[>→⇒⟶➔➡]")
_ARROW_BEFORE = re.compile(r"(?:-+>|=+>|[→⇒⟶➔➡]\ufe0f?)\s*$")
_ARROW_AFTER = re.compile(r"\s*(?:-+>|=+>|[→⇒⟶➔➡])")
# A letter with no case (Hebrew, Arabic) goes on a sentence as a lowercase one does.
_PROSE_FOLLOWS = re.compile(r" +[a-z\u0590-\u05ff\u0600-\u06ff]")


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
    if _WORD.fullmatch(value) and _PROSE_FOLLOWS.match(text, match.end()):
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
_PASSWORD_WORDS = (
    r"password|passwd|passphrase|passcode|pwd|pw|pswd|pswrd|p/w|pass(?==)|mot de passe|contrase[ñn]a"
    r"|passwort|kennwort|senha|wachtwoord|has[łl]o|l[öo]senord|salasana|пароль"
)
_PASSWORD_HINT_WORDS = "pass pw psw p/w contrase kennwort senha wachtwoord hasło haslo senord salasana пароль"
_PASSWORD_HINTS = tuple(_PASSWORD_HINT_WORDS.split())
# "password for the router is ...": a short qualifier between the word and its value.
_QUALIFIER = (
    r"(?:\s+(?:for|to|of|on|at|pour|de|du|des|para|del|da|do|für|vom|voor|van)\s+[^\n.:=;,!?]{1,40}?)?"
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
_VALUE = r"(?:(?P<q>[\"'`])(?P<quoted>[^\n]{1,100}?)(?P=q)|(?P<secret>\S{0,99}[^\s.,;:?)\]}>'\"`]))"
# Hebrew and Arabic glue "the", "and", "that" to the word (הסיסמה, "the password"; סיסמת, "the password
# of") and qualify it without a preposition of their own ("הסיסמה לוויפי: ...", "the password to the
# Wi-Fi: ..."), so up to three words may stand between the word and its value.
_PASSWORD_WORDS_RTL = (
    r"(?<!\w)(?:[והשלבמכ]{0,3}(?:סיסמ[האת]|ססמ[הת])|(?:[وبل]?ال|[وبل])?كلمة (?:ال)?(?:مرور|سر))(?!\w)"
)
_IS_RTL = r"\s+(?:היא|הוא|זה|זו|هي|هو)(?:\s*:\s*|\s+)"
_QUALIFIER_RTL = r"(?:\s+[^\s.:=;,!?]{1,20}){0,3}?"
# Chinese, Japanese and Korean write no space around the word ("密码是abc12345", "パスワードは ... です"):
# the value is the run of ASCII after it, as typed on a keyboard, never the sentence going on.
_PASSWORD_WORDS_CJK = r"パスワード|暗証番号|密码|密碼|口令|비밀번호|암호"
_IS_CJK = r"\s*(?:[:=：]|は|是|为|為|는|은)\s*"
_VALUE_CJK = r"(?:(?P<q>[\"'`])(?P<quoted>[^\n]{1,100}?)(?P=q)|(?P<secret>[!-~]{1,98}[^\s.,;:?)\]}>'\"`\x80-\U0010ffff]))"

_NETWORK_WORDS = r"wi-?fi|wlan|wpa2?|wpa3|ssid|router|hotspot|network"
# Near a "password" or a "pass", what makes it a login's or a network's: a user name, an e-mail, a network.
_LOGIN_OR_NETWORK = re.compile(rf"(?i)\b(?:user(?:name)?|login|e-?mail|{_NETWORK_WORDS})\b|@")
_LOCK_WORDS = (
    r"gate|door|front door|entry|entrance|building|lobby|garage|parking|alarm|safe|lock|padlock|locker"
    r"|lockbox|key ?box|keypad|intercom|unlock|access|security"
)
_LOCK_WORDS_HE = r"שער|כניסה|דלת|בניין|בנין|לובי|חניה|חניון|אזעקה|כספת|מנעול|אינטרקום"

# Between a list's name and its items ("backup codes for GitHub: ", "seed phrase is\n"), and between items.
_CODES_LEAD = (
    r"[^\n:=]{0,30}?(?:\s*[:=]\s*|\s+(?:is|are|was|were)(?:\s*:\s*|\s+)|\s*\n\s*)"
    r"[\"'`]?(?:(?:[-*•]|\d{1,2}[.)])\s+)?"
)
_LIST_GAP = r"(?:[\s,;]+(?:(?:[-*•]|\d{1,2}[.)])\s+)?(?:and\s+)?)"
_CODE = (
    r"(?=[A-Za-z-]*[0-9])(?:[0-9]{4} [0-9]{4}|[A-Za-z0-9]{3,12}(?:-[A-Za-z0-9]{3,12}){1,3}|[A-Za-z0-9]{6,16})"
    r"(?![A-Za-z0-9-])"
)

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
    _Rule(
        "card_security_code",
        re.compile(
            rf"(?i)\b(?:cvv2?|cvc2?|csc|card security code)\b{_QUALIFIER}"
            r"(?:\s*[:=#]\s*|\s+(?:is\s+)?)(?P<secret>[0-9]{3,4})\b"
        ),
        hints=("cvv", "cvc", "csc", "security code"),
    ),
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
    _Rule(
        "password",
        re.compile(
            rf"(?i)(?<![A-Za-z0-9])(?:{_PASSWORD_WORDS})[\"']?{_QUALIFIER}"
            rf"(?P<sep>{_ARROW}|{_ASSIGN}|{_DASH}|{_IS}){_VALUE}"
        ),
        _password,
        hints=_PASSWORD_HINTS,
    ),
    # A login and its password pasted side by side: "username netanel password Hunter2xyz", or with a
    # slash, "login: dana@example.com / Zq7#kP2!".
    _Rule(
        "password",
        re.compile(rf"(?i)(?<![A-Za-z0-9])(?:{_PASSWORD_WORDS})(?P<sep>\s+){_VALUE}"),
        _password_beside_login,
        _LOGIN_OR_NETWORK,
        hints=_PASSWORD_HINTS,
    ),
    # After a login or a network, "pass" is its password ("Wi-Fi: HomeNet, pass: sunflower77"), and after
    # a network "key" is ("WPA key: sunflower77"); elsewhere they are a day pass and a key insight.
    _Rule(
        "password",
        re.compile(rf"(?i)(?<![^\s,;(/])pass(?P<sep>{_ARROW}|\s*[:=]\s*|{_IS}|\s+){_VALUE}"),
        _password_beside_login,
        _LOGIN_OR_NETWORK,
        hints=("pass",),
    ),
    _Rule(
        "password", re.compile(rf"(?i)pass(?P<sep>{_ARROW}|\s*=\s*){_VALUE}"), _opens_clause, hints=("pass",)
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
    ),
    _Rule(
        "password",
        re.compile(rf"(?:{_PASSWORD_WORDS_RTL}){_QUALIFIER_RTL}(?P<sep>{_ASSIGN}|{_IS_RTL}){_VALUE}"),
        _password,
        hints=("סיסמ", "ססמ", "كلمة"),
    ),
    _Rule(
        "password",
        re.compile(rf"(?:{_PASSWORD_WORDS_CJK})(?P<sep>{_IS_CJK}){_VALUE_CJK}"),
        _password,
        hints=("パスワード", "暗証番号", "密码", "密碼", "口令", "비밀번호", "암호"),
    ),
    # "PIN 4821" needs no "is": nothing else follows the word with a number.
    _Rule(
        "password",
        re.compile(
            rf"(?i)\bpin(?: number)?{_QUALIFIER}(?:{_ASSIGN}|\s+(?:is|was)\s+)(?P<secret>[0-9]{{4,8}})\b"
            r"|(?i:\bpin)\s+(?P<bare>[0-9]{4,8})\b"
        ),
        hints=("pin",),
    ),
    # A code that opens a door: "the gate code is 4821#", "alarm code 1739", "safe combination: 12-34-56".
    _Rule(
        "password",
        re.compile(
            rf"(?i)\b(?:{_LOCK_WORDS})[ -]?(?:code|combination|combo|pin)\b{_QUALIFIER}"
            rf"(?:\s+(?:this|next|from)\s+\w+)?(?:\s*[:=#]\s*|{_IS}|\s+)"
            r"(?P<secret>[0-9]{3,8}|[0-9]{1,3}(?:-[0-9]{1,3}){2,3})(?![0-9a-z])"
        ),
        hints=("code", "combination", "combo", "pin"),
    ),
    _Rule(
        "password",
        re.compile(
            rf"(?<!\w)[וה]?קוד\s+(?:של\s+)?[הלב]?(?:{_LOCK_WORDS_HE})(?:\s+[^\s.:=;,!?]{{1,20}}){{0,2}}?"
            r"(?:\s*[:=]\s*|\s+(?:היא|הוא|זה)\s+|\s+)(?P<secret>[0-9]{3,8})(?![0-9])"
        ),
        hints=("קוד",),
    ),
    # Two-factor backup codes, after their name: "8492 1047", "a1b2c-3d4e5", "Xk29fLq0"; each has a digit.
    # A one-time code ("the 2FA code was 482913") is dead in a minute: not one of them.
    _Rule(
        "recovery_codes",
        re.compile(
            rf"(?i)\b(?:backup|recovery|emergency|scratch)\s+codes?\b{_CODES_LEAD}"
            rf"(?P<secret>{_CODE}(?:{_LIST_GAP}{_CODE})*)"
        ),
        hints=("code",),
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


def find_secrets(text: str) -> list[SecretFinding]:
    """Every secret in text, in order; where two rules claim the same characters the more specific wins."""
    if not _INVISIBLE.search(text):
        return _find_secrets(text)
    kept = [i for i, char in enumerate(text) if not _INVISIBLE.match(char)]
    return [
        SecretFinding(f.kind, f.label, kept[f.start], kept[f.end - 1] + 1)
        for f in _find_secrets("".join(text[i] for i in kept))
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


def _find_secrets(text: str, *, decode: bool = True) -> list[SecretFinding]:
    claims: list[tuple[int, int, int, str]] = []  # (priority, start, end, kind): earlier rules are surer
    lowered = text.lower()
    for priority, rule in enumerate(_RULES):
        if rule.hints and not any(hint in lowered for hint in rule.hints):
            continue
        for match in rule.pattern.finditer(text):
            if rule.accepts(match):
                claims.append((priority, *match.span(_secret_group(match)), rule.kind))
    claims.extend((len(_RULES), start, end, "card_number") for start, end in _find_cards(text))
    if decode:  # last: a rule that knows the encoded run itself (a key, a JWT) names it better
        claims.extend((len(_RULES) + 1, start, end, kind) for start, end, kind in _find_encoded(text))
    kept: list[tuple[int, int, int, str]] = []
    for claim in sorted(claims):
        if all(claim[2] <= other[1] or claim[1] >= other[2] for other in kept):
            kept.append(claim)
    return [
        SecretFinding(kind, LABELS[kind], start, end)
        for _, start, end, kind in sorted(kept, key=lambda c: c[1])
    ]


def redact(text: str, findings: Iterable[SecretFinding] | None = None) -> str:
    """The text with each secret replaced by [REDACTED:<kind>]."""
    chosen = find_secrets(text) if findings is None else list(findings)
    parts: list[str] = []
    position = 0
    for finding in sorted(chosen, key=lambda f: f.start):
        if finding.start < position:  # overlaps one already replaced
            continue
        parts += [text[position : finding.start], f"[REDACTED:{finding.kind}]"]
        position = finding.end
    parts.append(text[position:])
    return "".join(parts)


def ensure_no_secrets(text: str) -> None:
    """Raise SecretError naming the kinds of secret in text, if there are any."""
    findings = find_secrets(text)
    if findings:
        raise SecretError(findings)
