"""A LangChain retriever over the hub's search: `pip install 'memhub-client[langchain]'`.

retriever = MemhubRetriever(hub=Memhub(url, agent="wa-assistant"), limit=5, filters={"person": "Dana"})
retriever.invoke("what does Dana drink?")  # Documents: the memory's text, its hit as metadata
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
except ModuleNotFoundError as missing:
    raise ModuleNotFoundError(
        f"memhub_client.langchain needs the client's langchain extra ({missing}): "
        "pip install './clients/python[langchain]'"
    ) from missing

from memhub_client.http import Memhub


class MemhubRetriever(BaseRetriever):
    """The memories `hub`'s agent may see for a query, best first, as Documents.

    Each Document's `page_content` is the memory's text and its `metadata` the search hit's other
    fields (id, kind, agent, channel, source, occurred_at, score, conflict_ids, ...), so a chain can
    cite who said it and where, and notice a dispute.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    hub: Memhub
    limit: int = 10
    # What `Memhub.search` takes besides the query: project, person, everywhere, kinds, agents, ...
    filters: dict[str, Any] = Field(default_factory=dict)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        hits = self.hub.search(query, limit=self.limit, **self.filters)
        return [
            Document(page_content=hit.text, id=hit.id, metadata=hit.model_dump(mode="json", exclude={"text"}))
            for hit in hits
        ]
