"""Token-based Fast-TCP ACK gate (placeholder until the gate model lands)."""

EXPERIMENTS: list = []
