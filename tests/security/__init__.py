"""Every attack that ever worked, kept as a test."""
