"""synthdocqa: judges package."""
