import re
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from hub.models import Memory
from hub.store.base import MemoryPoint
from hub.store.edge import EdgeStore, StoreInUse
from tests.store.conftest import make_memory


def test_a_shard_open_elsewhere_is_refused_naming_its_directory_until_closed(tmp_path: Path) -> None:
    owner = EdgeStore(tmp_path / "memories")
    try:
        with pytest.raises(
            StoreInUse, match=re.escape(f"the embedded store in {tmp_path / 'memories'} is open in another")
        ):
            EdgeStore(tmp_path / "memories")
    finally:
        owner.close()
    EdgeStore(tmp_path / "memories").close()  # closing released it


def test_what_waits_for_durability_is_called_after_the_flush_that_covers_it(
    tmp_path: Path, make_point: Callable[[Memory], MemoryPoint]
) -> None:
    store = EdgeStore(tmp_path / "memories", flush_interval=3600)
    called: list[str] = []
    try:
        store.upsert([make_point(make_memory("a", "Dana likes green tea"))])
        store.when_durable(lambda: called.append("first"))
        store.when_durable(lambda: 1 / 0)  # a failing callback neither stops the others nor the flush
        store.when_durable(lambda: called.append("second"))
        assert called == []  # written, searchable, but not yet on disk
        store.flush()
        assert called == ["first", "second"]
        store.flush()
        assert called == ["first", "second"]  # each is called once
        store.when_durable(lambda: called.append("at close"))
    finally:
        store.close()
    assert called == ["first", "second", "at close"]


def test_the_periodic_flush_calls_what_waits_for_durability(
    tmp_path: Path, make_point: Callable[[Memory], MemoryPoint]
) -> None:
    store = EdgeStore(tmp_path / "memories", flush_interval=0.05)
    durable = threading.Event()
    try:
        store.upsert([make_point(make_memory("a", "Dana likes green tea"))])
        store.when_durable(durable.set)
        assert durable.wait(10), "no flush called the callback in 10 s"
    finally:
        store.close()
