"""`memhub export`: write an agent's memories from the hub as a workspace, optionally into git."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from hub.api.schemas import MemoryPublic
from hub.conflicts.ledger import ConflictStatus
from hub.markdown.layout import Layout
from hub.markdown.open_conflicts import render_open_conflicts
from hub.markdown.render import render_workspace
from memhub_client import Memhub

# Left in every export folder: a later export may replace what an earlier one wrote, and nothing else.
MARKER = ".memhub-export"


class ExportError(RuntimeError):
    """The export would overwrite files it did not write."""


@dataclass
class ExportReport:
    path: Path
    memories: int = 0
    files: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)  # written by an earlier export, gone from the hub
    left_out: dict[str, str] = field(default_factory=dict)  # memory id -> why
    open_conflicts: bool = False
    commit: str | None = None

    def summary(self) -> str:
        lines = [f"{self.memories} memories into {len(self.files)} files under {self.path}"]
        if self.left_out:
            lines.append(
                f"  left out: {len(self.left_out)} ({', '.join(sorted(set(self.left_out.values())))})"
            )
        if self.removed:
            lines.append(f"  removed {len(self.removed)} files an earlier export wrote")
        if self.open_conflicts:
            lines.append("  open conflicts listed in the open-conflicts page")
        if self.commit:
            lines.append(f"  committed {self.commit[:12]}")
        return "\n".join(lines)


def export_workspace(
    root: Path,
    *,
    hub: Memhub,
    layout: Layout | None = None,
    git: bool = False,
    message: str | None = None,
    progress: bool = False,
) -> ExportReport:
    """Write `hub.agent`'s memories (all but superseded ones) under `root` in the workspace layout."""
    layout = layout or Layout()
    marker = f"memhub export of agent {hub.agent}\n"
    _check_target(root, marker)
    # As the hub's own models: the rendering is the hub's, and reads their enums by identity.
    memories = [
        MemoryPublic.model_validate(m.model_dump(mode="json"))
        for m in tqdm(hub.all_memories(), desc="reading", unit="memory", disable=not progress)
    ]
    rendering = render_workspace(memories, layout=layout)
    files = dict(rendering.files)
    page = render_open_conflicts(hub.conflicts(status=ConflictStatus.open.value), rendering)
    if page is not None:
        files[layout.ledger] = page
    report = ExportReport(root, memories=len(rendering.placed), files=sorted(files))
    report.left_out, report.open_conflicts = rendering.left_out, page is not None
    report.removed = _remove_stale(root, layout, keep=set(files))
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    (root / MARKER).write_text(marker, encoding="utf-8")
    if git:
        report.commit = commit(root, message or f"memhub export of {hub.agent}: {report.memories} memories")
    return report


def _check_target(root: Path, marker: str) -> None:
    """Refuse to write over a folder that holds anything but an earlier export of this agent."""
    if not root.exists():
        root.mkdir(parents=True)
        return
    if not root.is_dir():
        raise ExportError(f"{root} is a file: export writes a folder")
    if (root / MARKER).is_file():
        if (root / MARKER).read_text(encoding="utf-8") != marker:
            raise ExportError(
                f"{root} holds an export of another agent ({(root / MARKER).read_text().strip()})"
            )
        return
    if any(p.name != ".git" for p in root.iterdir()):
        raise ExportError(
            f"{root} is not empty and not a memhub export: export into an empty folder (an agent's live "
            "workspace holds lines the hub skipped, such as secrets, which an export would overwrite)"
        )


def _remove_stale(root: Path, layout: Layout, *, keep: set[str]) -> list[str]:
    stale = [ref.path for ref in layout.files(root) if ref.path not in keep]
    if (root / layout.ledger).is_file() and layout.ledger not in keep:
        stale.append(layout.ledger)
    for path in stale:
        (root / path).unlink()
        parent = (root / path).parent
        while parent != root and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent
    return stale


def _git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=root, check=check, capture_output=True, text=True)


def commit(root: Path, message: str) -> str | None:
    """Commit everything under `root` (a git repository, made if missing); None when nothing changed."""
    if not (root / ".git").exists():
        _git(root, "init", "--quiet")
    _git(root, "add", "--all")
    if not _git(root, "status", "--porcelain").stdout.strip():
        return None
    # Machines that never set a git identity (servers, CI) still get their backups committed.
    identity: list[str] = []
    if _git(root, "config", "user.email", check=False).returncode != 0:
        identity = ["-c", "user.name=memhub", "-c", "user.email=memhub@localhost"]
    _git(root, *identity, "commit", "--quiet", "--message", message)
    return _git(root, "rev-parse", "HEAD").stdout.strip()
