"""Public-state views: the public state of a history, for the games the search supports."""

from algorithms.rebel.public_views import liars_dice  # noqa: F401  (registers its view)
from algorithms.rebel.public_views.registry import public_state_function  # noqa: F401
from algorithms.rebel.public_views.registry import supported_games  # noqa: F401
