"""Who looks at it: the ``wonders`` command line (and, later, the Flask app)."""
