import re
from pathlib import Path

import pytest

from hub.store.edge import EdgeStore, StoreInUse


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
