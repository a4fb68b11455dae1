"""synthdocqa: flows package."""
