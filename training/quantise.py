"""Write a trained pair judge as memhub ships it: int8 weights per output row, no word embeddings.

The word embedding matrix is the shipped embedding model's own (frozen in training), so it is read
from that model at load time (`hub.conflicts.judge.pairmodel.load`), and the file holds what training changed.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

WORD_EMBEDDINGS = "bert.embeddings.word_embeddings.weight"
CONFIG_FILES = ("config.json",)


def export(trained: Path, out: Path) -> Path:
    """Quantise the model in `trained` into `out`/weights.safetensors; returns the file."""
    import torch
    from safetensors.torch import save_file
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained(str(trained))
    tensors: dict[str, torch.Tensor] = {}
    for name, value in model.state_dict().items():
        if name == WORD_EMBEDDINGS:
            continue
        value = value.detach().float()
        if value.ndim == 2 and value.shape[0] > 3:
            scale = value.abs().amax(dim=1).clamp(min=1e-8) / 127.0
            tensors[f"{name}.int8"] = torch.round(value / scale[:, None]).to(torch.int8).contiguous()
            tensors[f"{name}.scale"] = scale.contiguous()
        else:
            tensors[name] = value.contiguous()
    out.mkdir(parents=True, exist_ok=True)
    target = out / "weights.safetensors"
    save_file(tensors, str(target))
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    target.with_suffix(".sha256").write_text(f"{digest}  {target.name}\n")
    for name in CONFIG_FILES:
        shutil.copy(trained / name, out / name)
    config = json.loads((out / "config.json").read_text())
    config.pop("_name_or_path", None)
    (out / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    return target
