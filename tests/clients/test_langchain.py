"""The LangChain retriever over a real hub's search: documents with who said what, where."""

import asyncio

import pytest

pytest.importorskip("langchain_core", reason="the client's [langchain] extra")
from memhub_client import Memhub  # noqa: E402
from memhub_client.langchain import MemhubRetriever  # noqa: E402


@pytest.mark.slow
def test_the_retriever_returns_the_hubs_hits_as_documents(hub_url: str) -> None:
    with (
        Memhub(hub_url, agent="lc-wa", channel="whatsapp") as wa,
        Memhub(hub_url, agent="lc-tg", channel="telegram") as tg,
    ):
        said = wa.wait(wa.publish("Dana prefers green tea, no sugar", kind="preference", source="wa:msg:77"))
        wa.wait(wa.publish("Dana's daughter plays the cello", scope="person", person="Dana"))

        retriever = MemhubRetriever(hub=tg, limit=3)
        (best, *_) = retriever.invoke("what does Dana drink?")
        assert best.page_content == "Dana prefers green tea, no sugar" and best.id == said.memory_id
        assert (best.metadata["agent"], best.metadata["channel"], best.metadata["source"]) == (
            "lc-wa",
            "whatsapp",
            "wa:msg:77",
        )
        assert best.metadata["kind"] == "preference" and "text" not in best.metadata

        # The filters are search's: a person's memories when named.
        cello = "Dana's daughter plays the cello"
        assert cello not in [d.page_content for d in retriever.invoke("cello")]
        named = MemhubRetriever(hub=tg, filters={"person": "Dana"})
        assert [d.page_content for d in asyncio.run(named.ainvoke("cello"))][:1] == [cello]
