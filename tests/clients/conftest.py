"""A real hub for the clients' end-to-end tests: one `memhub up` shared by every test that asks for it."""

from collections.abc import Iterator

import pytest

from tests.helpers import memhub_up


@pytest.fixture(scope="session")
def hub_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of a `memhub up` on a fresh data folder and a free port (it loads the model: one a run).
    Tests share it, each with agents of its own."""
    folder = tmp_path_factory.mktemp("hub")
    with memhub_up(folder / "data", folder / "up.log") as url:
        yield url
