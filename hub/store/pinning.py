"""Which model a store's vectors were written by: recorded with the store, and checked at every start.

A query embedded by one model and compared with vectors another model wrote finds nothing sensible,
and without an error; so a process refuses to start against a store another model wrote, and says
how to switch (`memhub reembed`).
"""

from __future__ import annotations

from hub.embedding import ModelIdentity
from hub.store.base import MemoryStore


class ModelMismatch(RuntimeError):
    """The store was written by another model than the one this process loaded."""


def check_model(store: MemoryStore, model: ModelIdentity) -> None:
    """Refuse a store another model wrote; record `model` in a store that has no record yet."""
    recorded = store.model_identity()
    if recorded is None:
        if store.dimensions != model.dimensions:
            raise ModelMismatch(
                f"this hub's store holds {store.dimensions}-dim vectors and {model.describe()} makes "
                f"{model.dimensions}-dim ones; run `memhub reembed --model {model.name}` to switch the hub "
                "to it, or unset MEMHUB_MODEL to use the model that wrote it"
            )
        # A store from before stores recorded their model: every process had to load a model of this
        # dimension to write it, so the one loaded now is taken to be that model, from now on pinned.
        store.record_model(model)
        return
    if recorded.sha256 != model.sha256 or recorded.dimensions != model.dimensions:
        raise ModelMismatch(
            f"this hub was written by {recorded.describe()}, and this process loaded {model.describe()}; "
            f"set MEMHUB_MODEL={recorded.name} to use the hub as it is, or run "
            f"`memhub reembed --model {model.name}` to switch the hub to the new model"
        )
