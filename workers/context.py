"""What a worker hands each job it runs: the services it built at start-up, and its stop request.

RQ stores a job as a dotted path and JSON arguments, so the model and the store cannot travel with
it; the worker that takes the job passes them in as the job function's first argument, as arq
passes its `ctx`. Nothing is found through a module global, so one process can run the jobs of two
hubs (two workers, two Redis databases) side by side.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from rq.job import Job

from hub.services import Services


@dataclass
class JobContext:
    services: Services
    # Set when the worker is asked to stop, so that a long job (a drain) ends at its next safe point.
    stopping: threading.Event = field(default_factory=threading.Event)

    def stop_requested(self) -> bool:
        return self.stopping.is_set()


class NoContextError(RuntimeError):
    pass


class ContextJob(Job):
    """A job that calls its function with the context of the worker running it, then its arguments."""

    context: JobContext | None = None

    def _execute(self) -> Any:
        if self.context is None:
            raise NoContextError(
                f"{self.func_name} needs memhub's services: run it with `memhub worker` or `memhub up`"
            )
        return self.func(self.context, *self.args, **self.kwargs)
