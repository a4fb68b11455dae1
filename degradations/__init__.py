"""synthdocqa: degradations package."""
