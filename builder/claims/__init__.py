"""Machine-checkable claims: predictions with deadlines and checks of published statements."""
