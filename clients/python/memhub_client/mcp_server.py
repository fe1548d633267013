"""`memhub-mcp`: the hub's memory as MCP tools, for any MCP client (Claude Desktop, Cursor, OpenClaw).

    memhub-mcp --url http://127.0.0.1:8420 --agent desktop-assistant [--api-key KEY] [--channel C]

Speaks MCP over stdio, or over streamable HTTP with `--http PORT`, as one agent of the hub.
Needs the extra: `pip install 'memhub-client[mcp]'`.
"""

from __future__ import annotations

import argparse
import os
from typing import Annotated, Any

from pydantic import Field

try:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations
except ModuleNotFoundError as missing:  # `memhub-mcp` is installed with the client, the SDK with the extra
    raise ModuleNotFoundError(
        f"memhub-mcp needs the client's mcp extra ({missing}): pip install './clients/python[mcp]'"
    ) from missing

from memhub_client.http import Memhub, MemhubError
from memhub_client.models import Confidence, EventState, Kind, Scope, SearchHit

INSTRUCTIONS = """\
Long-term memory shared with the owner's other assistants. Call `load_core` at the start of a
conversation and keep its markdown in mind. Call `recall` before answering anything that depends on
what the owner said before (people, plans, preferences, decisions) and say where a memory came from
when it matters. Call `remember` for what is worth keeping beyond this conversation: facts the owner
states, preferences, decisions, tasks, corrections; a conclusion you drew is `deduced`, with its
evidence. Never remember secrets (passwords, codes, keys): the hub refuses them. When `recall` shows
`conflict_ids`, or `open_questions` has questions for you, ask the owner in your channel and record
the answer with `resolve_conflict`. `forget` only when the owner asks to forget something.
"""

# A hit as a model reads it: what was said, by whom, where, and whether it is disputed.
HIT_FIELDS = [
    "id",
    "text",
    "kind",
    "scope",
    "project",
    "person",
    "agent",
    "channel",
    "source",
    "occurred_at",
    "created_at",
    "confidence",
    "stale",
    "conflict_ids",
]


def _hit(hit: SearchHit) -> dict[str, Any]:
    return hit.model_dump(mode="json", include=set(HIT_FIELDS), exclude_none=True)


def _refused(error: MemhubError) -> ToolError:
    """The hub's refusal as the tool's error, which the model reads (any other exception's text stays
    on the server): it names the field to fix."""
    return ToolError(f"the hub refused this ({error.status_code}): {error.detail}")


def build_server(hub: Memhub, *, wait_timeout: float = 30.0) -> MCPServer:
    """The MCP server whose tools act on `hub` as its agent."""
    server: MCPServer = MCPServer("memhub", instructions=INSTRUCTIONS)
    reads = ToolAnnotations(readOnlyHint=True, openWorldHint=False)

    @server.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False))
    def remember(
        text: Annotated[
            str,
            Field(
                description="The memory in one or two plain sentences, naming who and what "
                '("Dana\'s son starts school on 1 September"), not "he starts then".'
            ),
        ],
        kind: Annotated[
            Kind,
            Field(
                description="fact: stated by the owner; deduced: your inference (give "
                "evidence); preference; decision; correction (replaces what it contradicts); "
                "task; open_loop (to follow up); status (of a project); summary."
            ),
        ] = Kind.fact,
        scope: Annotated[
            Scope,
            Field(
                description="global: for every conversation; project: only when that "
                "project is asked about (give project); person: about one person (give "
                "person); temporary: expires."
            ),
        ] = Scope.global_,
        project: Annotated[str | None, Field(description="The project's name, for scope=project.")] = None,
        person: Annotated[str | None, Field(description="The person's name, for scope=person.")] = None,
        evidence: Annotated[
            list[str] | None,
            Field(
                description="For kind=deduced: what you saw that supports "
                "it, each a short quote or observation."
            ),
        ] = None,
        confidence: Annotated[Confidence, Field(description="How sure you are.")] = Confidence.medium,
        source: Annotated[
            str | None, Field(description="Where it was said: a message id, a file and line.")
        ] = None,
    ) -> dict[str, Any]:
        """Keep a memory in the hub, shared with the owner's other assistants; waits until it is stored
        and returns its memory id. The hub notices when it contradicts what another assistant
        remembered, and says so in recall's conflict_ids."""
        try:
            event_id = hub.publish(
                text,
                kind=kind,
                scope=scope,
                project=project,
                person=person,
                evidence=evidence or None,
                confidence=confidence,
                source=source,
            )
            status = hub.wait(event_id, timeout=wait_timeout)
        except MemhubError as error:
            raise _refused(error) from error
        if status.status in (EventState.rejected, EventState.failed):
            raise ToolError(f"the hub did not store it: {status.error}")
        return {"event_id": event_id, "memory_id": status.memory_id, "status": status.status.value}

    @server.tool(annotations=reads)
    def recall(
        query: Annotated[str, Field(description="What you want to know, as a question or keywords.")],
        limit: Annotated[int, Field(ge=1, le=50, description="Most memories to return.")] = 10,
        project: Annotated[str | None, Field(description="Also look in this project's memories.")] = None,
        person: Annotated[str | None, Field(description="Also look in this person's memories.")] = None,
        everywhere: Annotated[
            bool, Field(description="Also look in every project's and person's memories.")
        ] = False,
        kinds: Annotated[list[Kind] | None, Field(description="Only these kinds.")] = None,
        agents: Annotated[
            list[str] | None, Field(description="Only what these assistants remembered.")
        ] = None,
        channels: Annotated[
            list[str] | None, Field(description="Only what was said in these channels.")
        ] = None,
    ) -> list[dict[str, Any]]:
        """Search the shared memory, best match first: each memory with who remembered it, where, when,
        and conflict_ids when assistants disagree about it (ask the owner then)."""
        filters = {
            "project": project,
            "person": person,
            "everywhere": everywhere or None,
            "kinds": kinds,
            "agents": agents,
            "channels": channels,
        }
        try:
            hits = hub.search(query, limit=limit, **{k: v for k, v in filters.items() if v is not None})
        except MemhubError as error:
            raise _refused(error) from error
        return [_hit(hit) for hit in hits]

    @server.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=True))
    def forget(
        memory_id: Annotated[str, Field(description="The memory's id, from recall.")],
    ) -> dict[str, Any]:
        """Forget a memory for good, everywhere the hub kept it. Only when the owner asks to forget it."""
        try:
            return hub.forget(memory_id).model_dump(mode="json")
        except MemhubError as error:
            raise _refused(error) from error

    @server.tool(annotations=reads)
    def load_core() -> str:
        """The owner's core memory as markdown (who they are, active context, quick reference): read it at
        the start of a conversation."""
        try:
            return hub.load_core().markdown
        except MemhubError as error:
            raise _refused(error) from error

    @server.tool(annotations=reads)
    def open_questions() -> list[dict[str, Any]]:
        """Conflicts between assistants' memories that the owner should decide and that you should ask
        about: each with the question, the channel to ask in, and the answers to pass to
        resolve_conflict as keep."""
        try:
            return [q.model_dump(mode="json") for q in hub.questions()]
        except MemhubError as error:
            raise _refused(error) from error

    @server.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=False))
    def resolve_conflict(
        conflict_id: Annotated[str, Field(description="From open_questions or recall's conflict_ids.")],
        keep: Annotated[
            str,
            Field(
                description="The memory id the owner confirmed (the other is superseded), "
                "or 'both' when both hold."
            ),
        ],
        note: Annotated[str | None, Field(description="What the owner said, in a few words.")] = None,
    ) -> dict[str, Any]:
        """Record the owner's answer to a conflict you asked them about (from open_questions or a
        recalled memory's conflict_ids): the memory they confirmed is kept, the other superseded."""
        try:
            conflict = hub.resolve_conflict(conflict_id, keep, note=note)
        except MemhubError as error:
            raise _refused(error) from error
        return conflict.model_dump(mode="json", include={"id", "status", "statements", "resolution"})

    return server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="memhub-mcp", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--url",
        default=os.environ.get("MEMHUB_URL", "http://127.0.0.1:8420"),
        help="the hub (default: $MEMHUB_URL, else http://127.0.0.1:8420)",
    )
    parser.add_argument(
        "--agent",
        default=os.environ.get("MEMHUB_AGENT"),
        required="MEMHUB_AGENT" not in os.environ,
        help="the agent it acts as ($MEMHUB_AGENT)",
    )
    parser.add_argument(
        "--api-key",
        default=os.environ.get("MEMHUB_API_KEY"),
        help="the agent's key, when the hub checks keys ($MEMHUB_API_KEY)",
    )
    parser.add_argument(
        "--channel",
        default=os.environ.get("MEMHUB_CHANNEL"),
        help="where this agent talks to the owner ($MEMHUB_CHANNEL)",
    )
    parser.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on PORT, not stdio")
    parser.add_argument("--host", default="127.0.0.1", help="with --http: the address to listen on")
    args = parser.parse_args(argv)
    with Memhub(args.url, agent=args.agent, channel=args.channel, api_key=args.api_key) as hub:
        server = build_server(hub)
        if args.http is None:
            server.run("stdio")
        else:
            server.run("streamable-http", host=args.host, port=args.http)


if __name__ == "__main__":
    main()
