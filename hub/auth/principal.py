"""The caller of a request and the checks its grants impose."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from hub.auth.api_keys import Grants
from hub.models import EventCreate, Kind, Memory, Scope


class Forbidden(Exception):
    """The caller is known but may not do this; the message says which grant is missing."""


@dataclass(frozen=True)
class Principal:
    agent: str | None  # None: the owner (single-user mode, or the admin key)
    admin: bool = False
    grants: Grants = field(default_factory=Grants)
    key_id: str | None = None

    @classmethod
    def owner(cls) -> Principal:
        return cls(agent=None, admin=True)

    @property
    def owner_level(self) -> bool:
        return self.admin or self.grants.unrestricted

    def require_admin(self) -> None:
        if not self.admin:
            raise Forbidden("this route needs the admin key (MEMHUB_ADMIN_KEY)")

    def require_owner_level(self) -> None:
        if not self.owner_level:
            raise Forbidden(
                f"key {self.key_id} is limited to some scopes, projects or persons; this route shows the "
                "owner's whole memory and needs an unrestricted key"
            )

    def require_write(self) -> None:
        if not self.admin and not self.grants.write:
            raise Forbidden(f"key {self.key_id} is read-only: it may not write")

    def decided_by(self, by: str) -> str:
        """Who a decision is recorded as: what the caller says, and through which agent's key when it
        is not that agent's own ("owner (via wa-assistant)": the agent relays the owner's answer)."""
        return by if self.agent is None or by == self.agent else f"{by} (via {self.agent})"

    def require_owner_write(self) -> None:
        """Owner level, and allowed to write: deciding conflicts and promotions, closing loops, compacting."""
        self.require_owner_level()
        self.require_write()

    def require_agent(self, agent: str) -> None:
        if self.agent is not None and agent != self.agent:
            raise Forbidden(f"agent: this key belongs to {self.agent!r}, not {agent!r}")

    def check_publish(self, events: Iterable[EventCreate]) -> None:
        for index, event in enumerate(events):
            where = f"events.{index}"
            self.require_agent_at(where, event.agent)
            if self.admin:
                continue
            self.require_write()
            g = self.grants
            if event.scope not in g.scopes:
                raise Forbidden(
                    f"{where}.scope: key {self.key_id} may not write {event.scope.value} memories"
                )
            if not g.allows_project(event.project):
                raise Forbidden(
                    f"{where}.project: key {self.key_id} may not write to project {event.project!r}"
                )
            if not g.allows_person(event.person):
                raise Forbidden(f"{where}.person: key {self.key_id} may not write about {event.person!r}")
            if not g.allows_channel(event.channel):
                raise Forbidden(f"{where}.channel: key {self.key_id} may publish on {g.channels} only")

    def check_corrections(
        self, events: Sequence[EventCreate], stored: Callable[[Sequence[str]], list[Memory]]
    ) -> None:
        """A correction supersedes the memories it names in `related` at once: it may name only
        memories this key may read (`stored` looks them up)."""
        if self.admin:
            return
        for index, event in enumerate(events):
            if event.kind is not Kind.correction or not event.related:
                continue
            for memory in stored(event.related):
                if not self.may_read(memory):
                    raise Forbidden(
                        f"events.{index}.related: key {self.key_id} may not correct memory {memory.id!r}: "
                        "a correction may name only memories the key can read"
                    )

    def require_agent_at(self, where: str, agent: str) -> None:
        if self.agent is not None and agent != self.agent:
            raise Forbidden(
                f"{where}.agent: this key belongs to {self.agent!r}; it cannot publish as {agent!r}"
            )

    def readable_scopes(
        self,
        *,
        agent: str,
        channel: str | None,
        project: str | None,
        person: str | None,
        scopes: Iterable[Scope] | None,
    ) -> frozenset[Scope] | None:
        """The scopes a search may return (None: all), or Forbidden naming the grant it lacks."""
        self.require_agent(agent)
        if self.admin:
            return None if scopes is None else frozenset(scopes)
        g = self.grants
        if not g.read:
            raise Forbidden(f"key {self.key_id} may not read")
        if not g.allows_channel(channel):
            raise Forbidden(f"channel: key {self.key_id} may ask from {g.channels} only")
        if not g.allows_project(project):
            raise Forbidden(f"project: key {self.key_id} may not read project {project!r}")
        if not g.allows_person(person):
            raise Forbidden(f"person: key {self.key_id} may not read about {person!r}")
        allowed = frozenset(g.scopes)
        return allowed if scopes is None else allowed & frozenset(scopes)

    def granted(self) -> tuple[frozenset[str] | None, frozenset[str] | None]:
        """The projects and the persons it may read (None: any), as a search's filter takes them."""
        if self.admin:
            return None, None
        return self.grants.readable_projects(), self.grants.readable_persons()

    def may_read(self, memory: Memory) -> bool:
        if self.admin:
            return True
        g = self.grants
        return (
            g.read
            and memory.scope in g.scopes
            and g.allows_project(memory.project)
            and g.allows_person(memory.person)
        )
