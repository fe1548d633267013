"""Markdown in and out: an agent's memory folder imported into the hub, and exported back.

- `layout`: where each kind of file lives (configurable paths);
- `vocabulary`: what each kind of file means (tier, scope, sections and their kinds);
- `blocks` and `entries`: markdown into lines, and one line into tag, date, text and evidence;
- `reader` and `importer`: a workspace into events, published through the pipeline;
- `render`, `open_conflicts` and `exporter`: memories back into the same files.
"""

from hub.markdown.exporter import ExportError, ExportReport, export_workspace
from hub.markdown.importer import ImportReport, import_workspace
from hub.markdown.layout import Layout, Pattern, load_layout

__all__ = [
    "ExportError",
    "ExportReport",
    "ImportReport",
    "Layout",
    "Pattern",
    "export_workspace",
    "import_workspace",
    "load_layout",
]
