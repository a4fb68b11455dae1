"""synthdocqa: renderers package."""
