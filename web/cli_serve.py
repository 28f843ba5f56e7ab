"""The ``wonders serve`` command: the recording service on a real WSGI server."""

from __future__ import annotations

import click

from web.cli_cards import cards_option


@click.command("serve")
@click.option("--store", default=None, metavar="DIR_OR_URL",
              help="The store: a directory of match files, or a postgresql:// URL (many "
                   "servers on one database) [env WONDERS_STORE; default ./wonders-data].")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port to listen on (0: any free port; the chosen one is printed).")
@click.option("--threads", type=click.IntRange(1, 256), default=16, show_default=True,
              help="Worker threads of the waitress server (live-follow streams have their own).")
@cards_option
def serve(store: str | None, host: str, port: int, threads: int) -> None:
    """Run the recording API and the /play pages with waitress.

    Other settings come from WONDERS_* environment variables: WONDERS_ORGANIZER_TOKEN (printed
    at start when not set: a fresh one each run), WONDERS_SECRET_KEY, WONDERS_SPECTATOR_DELAY,
    WONDERS_MAX_BODY_BYTES, WONDERS_MAX_IMPORT_BYTES, WONDERS_FOLLOW_TIMEOUT,
    WONDERS_FOLLOW_MAX_STREAMS and WONDERS_FOLLOW_MAX_PER_CLIENT (live-follow streams run on
    threads of their own, beside --threads; past these caps a stream gets 503).  See docs/api.md.
    """
    from web.config import Settings
    from web.errors import ConfigError
    from web.serve import serve as run

    try:
        settings = Settings.from_env(store=store)
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None
    run(settings, host, port, threads, announce=lambda line: click.echo(line))
