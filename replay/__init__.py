"""What it means: cards, the rules engine, the replayer, bots and the simulator.

Depends on ``ledger``; never on ``web``, Flask or DuckDB.
"""
