"""The recording API's blueprints (organizer, seat, judge, public, import, live follow) and
what they share: the per-process table cache, authentication and the OpenAPI registry."""
