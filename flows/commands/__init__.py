"""Command groups of the synthdocqa CLI (one module per group)."""
