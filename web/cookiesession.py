"""The /play and /organize session cookie, opened only for a request that carries one.

Flask opens the session of every request before its view runs: its signed-cookie interface
first builds the signer (a serializer over the secret key, made anew each time), then looks
for the cookie.  Almost every API request comes with a bearer token and no cookie, so
:class:`CookieSessions` looks for the cookie first and, without one, hands out an empty session
at once -- what Flask's interface hands out too, without the signer it would not use.  A
request with the cookie is opened (its signature checked) exactly as Flask does.
"""

from __future__ import annotations

from flask import Flask, Request
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface


class CookieSessions(SecureCookieSessionInterface):
    """Flask's signed-cookie sessions, without building the signer for a request that has no
    session cookie."""

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        if app.secret_key and (not request.environ.get("HTTP_COOKIE")
                               or not request.cookies.get(self.get_cookie_name(app))):
            return self.session_class()  # (no Cookie header at all: not even one to parse)
        return super().open_session(app, request)
