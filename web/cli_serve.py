"""The ``wonders serve`` command: the recording service on a real WSGI server."""

from __future__ import annotations

import os
from typing import Any

import click

from web.cli_cards import cards_option


def core_count() -> int:
    """The cores this process may run on (its CPU affinity where the system says)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


class Processes(click.ParamType):
    """``--processes``: a count from 1, or ``auto`` / ``0`` for the machine's cores."""

    name = "N|auto"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int):
            number = value
        elif str(value).strip().lower() == "auto":
            number = 0
        else:
            try:
                number = int(str(value).strip())
            except ValueError:
                self.fail(f"{value!r} is neither a number of processes nor 'auto'", param, ctx)
        if not 0 <= number <= 256:
            self.fail(f"{number} is not between 0 (the cores: {core_count()}) and 256", param, ctx)
        return number or core_count()


@click.command("serve")
@click.option("--store", default=None, metavar="DIR_OR_URL",
              help="The store: a directory of match files, or a postgresql:// URL (many "
                   "servers on one database) [env WONDERS_STORE; default ./wonders-data].")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port to listen on (0: any free port; the chosen one is printed).")
@click.option("--threads", type=click.IntRange(1, 256), default=16, show_default=True,
              help="Worker threads of the waitress server (live-follow streams have their own); "
                   "per process.")
@click.option("--processes", type=Processes(), default="1", show_default=True,
              help="Worker processes on the one port, each with --threads threads (auto or 0: "
                   "one per core). 1 is a single process, with no parent. See docs/deploy.md.")
@cards_option
def serve(store: str | None, host: str, port: int, threads: int, processes: int) -> None:
    """Run the recording API and the /play pages with waitress.

    Other settings come from WONDERS_* environment variables: WONDERS_ORGANIZER_TOKEN (printed
    at start when not set: a fresh one each run), WONDERS_SECRET_KEY, WONDERS_SPECTATOR_DELAY,
    WONDERS_MAX_BODY_BYTES, WONDERS_MAX_IMPORT_BYTES, WONDERS_FOLLOW_TIMEOUT,
    WONDERS_FOLLOW_MAX_STREAMS and WONDERS_FOLLOW_MAX_PER_CLIENT (live-follow streams run on
    threads of their own, beside --threads; past these caps a stream gets 503; with
    --processes, every cap is per process).  See docs/api.md.
    """
    from web.config import Settings
    from web.errors import ConfigError
    from web.serve import CannotListenError
    from web.serve import serve as run
    from web.supervise import WorkerFailed

    try:
        settings = Settings.from_env(store=store)
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        run(settings, host, port, threads, announce=lambda line: click.echo(line),
            processes=processes, report=lambda line: click.echo(f"warning: {line}", err=True))
    except (WorkerFailed, CannotListenError) as exc:
        raise click.ClickException(str(exc)) from None
