"""Public-state views: the public state of a history and each player's private state in it."""

from algorithms.rebel.public_views import liars_dice  # noqa: F401  (registers its view)
from algorithms.rebel.public_views.private_states import natural_key  # noqa: F401
from algorithms.rebel.public_views.private_states import private_state_function  # noqa: F401
from algorithms.rebel.public_views.registry import public_state_function  # noqa: F401
from algorithms.rebel.public_views.registry import supported_games  # noqa: F401
