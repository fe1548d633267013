"""`memhub keys create|list|revoke` and `memhub dlq list|replay`, through the hub's API (and the
options every admin command takes, `add_hub_options`).

They go through the API rather than Redis so that they work the same against the embedded hub
(whose Redis has no address outside it) and a deployment; they need the admin key.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import httpx

from hub.settings import get_settings


def _call(args: argparse.Namespace, method: str, path: str, **kwargs: Any) -> Any:
    base_url = args.url or get_settings().local_api_url
    headers = {"Authorization": f"Bearer {args.admin_key}"} if args.admin_key else {}
    try:
        response = httpx.request(method, f"{base_url}{path}", headers=headers, timeout=30, **kwargs)
    except httpx.TransportError as exc:
        print(
            f"memhub: cannot reach the hub at {base_url} ({exc}); is it running? (or pass --url)",
            file=sys.stderr,
        )
        raise SystemExit(1) from exc
    if response.status_code >= 400:
        try:
            detail = response.json().get("detail")
        except ValueError:  # a proxy's page, not the hub's answer
            detail = response.text[:200]
        print(f"memhub: {response.status_code} {detail}", file=sys.stderr)
        raise SystemExit(1)
    return response.json()


def cmd_keys(args: argparse.Namespace) -> int:
    if args.action == "create":
        grants: dict[str, Any] = {"read": not args.write_only, "write": not args.read_only}
        for name in ("scopes", "projects", "persons", "channels"):
            if value := getattr(args, name):
                grants[name] = value.split(",")
        created = _call(
            args, "POST", "/v1/keys", json={"agent": args.agent, "grants": grants, "admin": args.admin}
        )
        print(json.dumps(created["key"], indent=2))
        print(f"token (shown once, stored only as a hash): {created['token']}")
    elif args.action == "list":
        for key in _call(args, "GET", "/v1/keys")["keys"]:
            state = f"revoked {key['revoked_at']}" if key["revoked_at"] else "live"
            print(f"{key['id']}  {key['agent']:<20} {state:<10} {json.dumps(key['grants'])}")
    else:
        revoked = _call(args, "DELETE", f"/v1/keys/{args.key_id}")
        print(f"revoked {revoked['id']} ({revoked['agent']})")
    return 0


def cmd_dlq(args: argparse.Namespace) -> int:
    if args.action == "list":
        for letter in _call(args, "GET", "/v1/dlq", params={"limit": args.limit})["dead_letters"]:
            print(f"{letter['at']}  {letter['id']}  {letter['status']}: {letter['error']}")
    else:
        params = {"event_id": args.event_id} if args.event_id else {}
        replayed = _call(args, "POST", "/v1/dlq/replay", params=params)["ids"]
        print(f"replayed {len(replayed)} event(s): {' '.join(replayed)}")
    return 0


def add_hub_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", help="the hub's API (default: MEMHUB_HOST and MEMHUB_PORT)")
    parser.add_argument("--admin-key", default=os.environ.get("MEMHUB_ADMIN_KEY"), help="or MEMHUB_ADMIN_KEY")


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    keys = sub.add_parser("keys", help="manage API keys (admin key)")
    actions = keys.add_subparsers(dest="action", required=True)
    create = actions.add_parser("create", help="a key bound to one agent, with its grants")
    create.add_argument("--agent", required=True, help="the agent the key speaks for")
    create.add_argument("--scopes", help="comma-separated: global,project,person,temporary (default all)")
    create.add_argument("--projects", help="comma-separated project names (default all)")
    create.add_argument("--persons", help="comma-separated person names (default all)")
    create.add_argument(
        "--channels", help="comma-separated channels it publishes and asks from (default all)"
    )
    create.add_argument(
        "--read-only", action="store_true", help="may search and read, never publish or decide"
    )
    create.add_argument("--write-only", action="store_true", help="may publish, never read")
    create.add_argument("--admin", action="store_true", help="may manage keys")
    revoke = actions.add_parser("revoke", help="a key stops working at once")
    revoke.add_argument("key_id", help="as `keys list` shows it")
    for parser in (create, actions.add_parser("list", help="every key, its agent and grants"), revoke):
        add_hub_options(parser)
    keys.set_defaults(func=cmd_keys)

    dlq = sub.add_parser("dlq", help="dead letters: events rejected or failed, with the cause")
    dlq_actions = dlq.add_subparsers(dest="action", required=True)
    listing = dlq_actions.add_parser("list", help="dead letters, oldest first, each with its cause")
    listing.add_argument("--limit", type=int, default=100, help="at most this many (default 100)")
    replay = dlq_actions.add_parser("replay", help="put dead letters back on the stream (all, or one)")
    replay.add_argument("event_id", nargs="?", help="only this event (default: every dead letter)")
    for parser in (listing, replay):
        add_hub_options(parser)
    dlq.set_defaults(func=cmd_dlq)
