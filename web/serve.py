"""Serving the app with a real WSGI server (waitress: one process, a pool of threads).

Threads suit this service: requests spend their time in fsync and file I/O (which release
the GIL), the table cache is shared by all threads of the process, and writers to one match
are serialised by the table lock and the file store's ``flock``.  Several ``wonders serve``
processes over one store directory are safe too: each table notices another process's
appends and reloads, and a stale writer gets a 409.
"""

from __future__ import annotations

import logging
import sys

from waitress.server import create_server

from web.app import create_app
from web.config import Settings


def serve(settings: Settings, host: str, port: int, threads: int, announce=print) -> None:
    """Run until interrupted; prints the address (and the organizer token) first."""
    app = create_app(settings)
    server = create_server(app, host=host, port=port, threads=threads, ident="wonders",
                           connection_limit=max(100, threads * 8), channel_timeout=120,
                           clear_untrusted_proxy_headers=True)
    actual_port = server.effective_port
    announce(f"serving {settings.store} on http://{host}:{actual_port} with {threads} threads")
    announce(f"organizer token: {settings.organizer_token}")
    sys.stdout.flush()
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)  # "task queue depth" noise
    try:
        server.run()
    finally:
        server.close()
