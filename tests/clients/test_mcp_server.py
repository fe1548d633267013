"""`memhub-mcp` driven by the MCP SDK's own client over stdio, against `memhub up`."""

import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import httpx
import pytest

pytest.importorskip("mcp", reason="the client's [mcp] extra")
from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from tests.helpers import free_port  # noqa: E402

TOOLS = {"remember", "recall", "forget", "load_core", "open_questions", "resolve_conflict"}


@asynccontextmanager
async def mcp_session(url: str, agent: str, channel: str) -> AsyncIterator[ClientSession]:
    """`memhub-mcp --url URL --agent AGENT --channel CHANNEL` as an MCP client starts it: over stdio."""
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memhub_client.mcp_server", "--url", url, "--agent", agent, "--channel", channel],
        env={"PYTHONPATH": os.environ.get("PYTHONPATH", "")},  # the SDK passes on only a safe few
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


@pytest.mark.slow
def test_a_client_lists_the_tools_remembers_as_one_agent_and_recalls_as_another(hub_url: str) -> None:
    async def scenario() -> None:
        async with mcp_session(hub_url, "mcp-desktop", "desktop") as desktop:
            tools = {tool.name: tool for tool in (await desktop.list_tools()).tools}
            assert set(tools) == TOOLS
            for tool in tools.values():  # what a model reads to use them unprompted
                assert tool.description and len(tool.description) > 40, tool.name
                for name, schema in tool.input_schema.get("properties", {}).items():
                    assert schema.get("description"), f"{tool.name}.{name}"
            assert "deduced" in tools["remember"].input_schema["$defs"]["Kind"]["enum"]

            remembered = await desktop.call_tool(
                "remember",
                {
                    "text": "Yael prefers aisle seats on long flights",
                    "kind": "preference",
                    "source": "chat:7",
                },
            )
            assert not remembered.is_error, remembered.content
            memory_id = remembered.structured_content["memory_id"]

            refused = await desktop.call_tool("remember", {"text": "Yael is vegetarian", "kind": "deduced"})
            assert refused.is_error and "evidence" in refused.content[0].text  # the hub names the fix

        async with mcp_session(hub_url, "mcp-phone", "whatsapp") as phone:
            recalled = await phone.call_tool("recall", {"query": "which seat does Yael like on a plane?"})
            assert not recalled.is_error, recalled.content
            (best, *_) = recalled.structured_content["result"]
            assert (best["id"], best["agent"], best["channel"], best["source"]) == (
                memory_id,
                "mcp-desktop",
                "desktop",
                "chat:7",
            )
            core = await phone.call_tool("load_core", {})
            assert not core.is_error and isinstance(core.structured_content["result"], str)
            questions = await phone.call_tool("open_questions", {})
            assert not questions.is_error and questions.structured_content["result"] == []

    anyio.run(scenario)


def test_with_http_it_serves_the_same_tools_over_streamable_http() -> None:
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memhub_client.mcp_server",
            "--url",
            "http://127.0.0.1:9",
            "--agent",
            "desk",
            "--http",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:  # listening once any answer comes back
            try:
                httpx.get(f"http://127.0.0.1:{port}/mcp", timeout=1)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and server.poll() is None, (
                    "memhub-mcp --http never listened"
                )
                time.sleep(0.2)

        async def listed() -> set[str]:
            async with (
                streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write, *_),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return {tool.name for tool in (await session.list_tools()).tools}

        assert anyio.run(listed) == TOOLS
    finally:
        server.terminate()
        server.wait(30)
