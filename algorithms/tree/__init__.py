"""The game tree walked into flat arrays, its sequence form and array layout, and the game-specific
shortcuts that build trees without walking (one registry keyed by game name)."""

from algorithms.tree import kuhn_tree  # noqa: F401  (registers Kuhn poker's shortcuts)
