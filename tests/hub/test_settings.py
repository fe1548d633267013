"""Settings a command reads on the machine it runs on."""

import pytest

from hub.settings import Settings


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("127.0.0.1", "http://127.0.0.1:8420"),
        ("0.0.0.0", "http://127.0.0.1:8420"),  # listening everywhere: reached on the loopback
        ("::", "http://127.0.0.1:8420"),
        ("::1", "http://[::1]:8420"),
        ("hub.internal", "http://hub.internal:8420"),
    ],
)
def test_a_command_reaches_the_api_where_it_listens(host: str, url: str) -> None:
    # `memhub keys` and `dlq` built http://0.0.0.0:8420 (and http://:::8420) themselves, beside the
    # import's and maintenance's own fix for it.
    assert Settings(host=host).local_api_url == url
