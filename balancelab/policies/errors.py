"""The policies' error type, importable without the policy registry (``presets`` uses it)."""


class PolicyError(ValueError):
    """An unknown policy, a policy that cannot play a seat, or a bad policy parameter."""
