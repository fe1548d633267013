"""Where each kind of memory file lives in an agent workspace: path patterns, configurable."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from enum import StrEnum
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

# What each placeholder of a pattern may match; anything else matches one path component.
_PLACEHOLDERS = {
    "date": r"\d{4}-\d{2}-\d{2}",
    "chat_type": r"groups|dms",
    "name": r".+",  # archival files may nest: archival/people/family/dana.md
}


class LayoutError(ValueError):
    """A layout that import or export could not use."""


class FileKind(StrEnum):
    long_term = "long_term"  # MEMORY.md
    core = "core"
    daily = "daily"
    project = "project"
    archival = "archival"
    conflicts = "conflicts"
    chat = "chat"  # per-chat context.md


@dataclass(frozen=True)
class Pattern:
    """A relative path with `{placeholders}`, e.g. `memory/projects/{project}.md`."""

    template: str

    def match(self, path: str) -> dict[str, str] | None:
        parts = re.split(r"\{(\w+)\}", self.template)
        regex = "".join(
            f"(?P<{part}>{_PLACEHOLDERS.get(part, '[^/]+')})" if i % 2 else re.escape(part)
            for i, part in enumerate(parts)
        )
        found = re.fullmatch(regex, path)
        if found is None:
            return None
        if "date" in found.groupdict() and not _valid_date(found["date"]):
            return None
        return found.groupdict()

    def format(self, **params: str) -> str:
        return self.template.format(**params)


def _valid_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


# The placeholders a kind's patterns must have (what its memories take from their path), and those
# export fills in when it writes the kind's files.
_NEEDED = {
    FileKind.daily: {"date"},
    FileKind.conflicts: {"date"},
    FileKind.project: {"project"},
    FileKind.archival: {"name"},
    FileKind.chat: {"channel", "chat"},
}
_WRITTEN = {
    **_NEEDED,
    FileKind.archival: {"category", "name"},
    FileKind.chat: {"channel", "chat_type", "chat"},
}


def _braced(names: set[str]) -> str:
    return ", ".join(f"{{{n}}}" for n in sorted(names))


@dataclass(frozen=True)
class FileRef:
    """One workspace file and what its path says: its kind, and the date, project or chat it names."""

    kind: FileKind
    path: str  # relative, POSIX separators
    params: dict[str, str] = field(default_factory=dict, compare=False, hash=False)

    @property
    def day(self) -> date | None:
        return date.fromisoformat(self.params["date"]) if "date" in self.params else None


def _patterns(*templates: str) -> tuple[Pattern, ...]:
    return tuple(Pattern(t) for t in templates)


@dataclass(frozen=True)
class Layout:
    """The workspace layout. Each kind lists its patterns; export writes new files with the first.

    Kinds are tried in field order, so a more specific pattern (`memory/core.md`) wins over a looser
    one (`memory/{date}.md` only matches dates anyway).
    """

    long_term: tuple[Pattern, ...] = _patterns("MEMORY.md")
    core: tuple[Pattern, ...] = _patterns("memory/core.md")
    conflicts: tuple[Pattern, ...] = _patterns("memory/conflicts/{date}.md")
    daily: tuple[Pattern, ...] = _patterns("memory/daily/{date}.md", "memory/{date}.md")
    project: tuple[Pattern, ...] = _patterns("memory/projects/{project}.md")
    archival: tuple[Pattern, ...] = _patterns(
        "memory/archival/{category}/{name}.md", "memory/archival/{name}.md"
    )
    chat: tuple[Pattern, ...] = _patterns("memory/{channel}/{chat_type}/{chat}/context.md")
    # The hub's open conflicts, written by export for people to read; never imported (the hub finds
    # them again from the memories).
    ledger: str = "memory/conflicts/open.md"
    # Times written without a zone (a session heading's 09:40) are in the owner's zone.
    timezone: str = "UTC"

    def __post_init__(self) -> None:
        """Refuse a layout that import or export could not use, naming the key: it would fail later,
        file by file, with a KeyError."""
        for kind, patterns in self.kinds():
            if not patterns:
                raise LayoutError(f"{kind.value}: needs at least one path pattern")
            for i, pattern in enumerate(patterns):
                names = set(re.findall(r"\{(\w+)\}", pattern.template))
                if missing := _NEEDED.get(kind, set()) - names:
                    raise LayoutError(f"{kind.value}: {pattern.template!r} needs {_braced(missing)}")
                # Export writes a kind's files with its first pattern: it knows only these values.
                if i == 0 and (unknown := names - _WRITTEN.get(kind, set())):
                    raise LayoutError(
                        f"{kind.value}: export writes {pattern.template!r} (the first pattern) and has no "
                        f"value for {_braced(unknown)}; it may use {_braced(_WRITTEN.get(kind, set())) or 'none'}"
                    )
        try:
            ZoneInfo(self.timezone)
        except (ValueError, ZoneInfoNotFoundError):
            raise LayoutError(f"timezone: no time zone called {self.timezone!r}") from None

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    def kinds(self) -> Iterator[tuple[FileKind, tuple[Pattern, ...]]]:
        for kind in FileKind:
            yield kind, getattr(self, kind.value)

    def classify(self, path: str) -> FileRef | None:
        """What a relative path is in this layout, or None when it is not a memory file."""
        if path == self.ledger:
            return None
        for kind, patterns in self.kinds():
            for pattern in patterns:
                params = pattern.match(path)
                if params is not None:
                    return FileRef(kind, path, params)
        return None

    def ref(self, kind: FileKind, **params: str) -> FileRef:
        """The file export writes for `kind` with these parameters."""
        pattern: Pattern = getattr(self, kind.value)[0]
        return FileRef(kind, pattern.format(**params), params)

    def files(self, root: Path) -> list[FileRef]:
        """Every memory file under `root`, in a stable order."""
        return [ref for path in _markdown(root) if (ref := self.classify(path)) is not None]

    def unmatched(self, root: Path) -> list[str]:
        """Markdown files where memory files live that no pattern matches (`memory/daily/2026-3-2.md`,
        `memory/people/dana.md`, `memory.md`), so that the importer can say it left them out.

        Where memory lives: under the patterns' top folders (`memory/`), and at the top level only names
        that differ from a pattern's by case; a workspace's other files (AGENTS.md, skills/) are not memory.
        """
        templates = [p.template for _, patterns in self.kinds() for p in patterns]
        folders = {t.split("/")[0] for t in templates if "/" in t and "{" not in t.split("/")[0]}
        top = {t.casefold() for t in templates if "/" not in t}
        return [
            path
            for path in _markdown(root)
            if path != self.ledger
            and self.classify(path) is None
            and (path.split("/")[0] in folders if "/" in path else path.casefold() in top)
        ]


def _markdown(root: Path) -> list[str]:
    """The relative paths of the markdown files under `root`, hidden folders (.git) left out."""
    found = []
    for path in sorted(root.rglob("*.md")):
        relative = path.relative_to(root)
        if path.is_file() and not any(part.startswith(".") for part in relative.parts):
            found.append(relative.as_posix())
    return found


def load_layout(path: Path, *, timezone: str = "UTC") -> Layout:
    """A Layout from a TOML file: `daily = ["journal/{date}.md"]`, `timezone = "Asia/Jerusalem"`, …
    (`timezone` where the file names none)."""
    import tomllib

    try:
        values = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except OSError as exc:
        raise LayoutError(f"{path}: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise LayoutError(f"{path}: not TOML ({exc})") from None
    unknown = set(values) - set(Layout.__dataclass_fields__)
    if unknown:
        raise LayoutError(f"{path}: unknown layout keys {sorted(unknown)}")
    fields: dict[str, object] = {"timezone": timezone}
    for key, value in values.items():
        if key in {"ledger", "timezone"}:
            fields[key] = str(value)
        elif isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            fields[key] = _patterns(*([value] if isinstance(value, str) else value))
        else:
            raise LayoutError(f"{path}: {key} is a path pattern or a list of them, not {value!r}")
    try:
        return Layout(**fields)  # type: ignore[arg-type]
    except LayoutError as exc:
        raise LayoutError(f"{path}: {exc}") from None
