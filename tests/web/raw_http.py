"""Requests written byte by byte to a real server on loopback, and its first answer read: for
what an HTTP library won't send (a body announced and never sent, a chunked body cut off or in
tiny chunks, a header of raw bytes).  ``server`` is anything with a ``base``
(``http://host:port``): :class:`tests.security.live.LiveServer`.  (JSON calls made as a client
library makes them: :mod:`tests.web.live_http`.)"""

from __future__ import annotations

import json
import socket


def exchange(server, request: bytes, wait: float = 3.0) -> tuple[int, dict, str]:
    """Send ``request`` (headers, maybe part of a body) and read the answer: its status, its
    JSON body and its Content-Type; a server that waits for the rest of the body answers
    nothing (a timeout: status 0)."""
    status, headers, body = exchange_raw(server, request, wait)
    return status, json.loads(body) if status else {}, headers.get("Content-Type", "")


def exchange_raw(server, request: bytes, wait: float = 3.0) -> tuple[int, dict, bytes]:
    """``request`` sent, the first answer's status, headers and body (status 0: none came);
    the answer is read until the server closes the connection or ``wait`` seconds pass."""
    host, port = server.base.split("//")[1].rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=wait) as sock:
        sock.sendall(request)
        data = b""
        try:
            while chunk := sock.recv(65536):
                data += chunk
        except TimeoutError:
            if not data:
                return 0, {}, b""
        except ConnectionResetError:
            pass
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


def post(path: str, length: int, extra: bytes = b"") -> bytes:
    """A POST's request line and headers announcing ``length`` bytes of body (none sent), with
    the header lines ``extra``; the connection closes after the answer."""
    return (b"POST %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: "
            b"application/json\r\n%sContent-Length: %d\r\n\r\n" % (path.encode(), extra, length))


def chunked(path: str, body: bytes, size: int, extra: bytes = b"", end: bool = True) -> bytes:
    """A POST of ``body`` with ``Transfer-Encoding: chunked``, in chunks of ``size`` bytes, with
    the header lines ``extra``; ``end=False`` leaves out the last (empty) chunk: the body never
    ends."""
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(body[i:i + size]), body[i:i + size])
                      for i in range(0, len(body), size))
    return (b"POST %s HTTP/1.1\r\nHost: x\r\n%sTransfer-Encoding: chunked\r\n\r\n%s%s"
            % (path.encode(), extra, chunks, b"0\r\n\r\n" if end else b""))
