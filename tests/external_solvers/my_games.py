"""A game another project registers with pyspiel on import: ``--import external_solvers.my_games``
makes ``--game external_kuhn`` loadable. It is Kuhn poker with ante 2 under its own name, so the
project's closed forms do not recognise it and the sequence-form LP is its reference."""

import pyspiel

from spiel_games import kuhn_poker_ante

SHORT_NAME = "external_kuhn"
GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME, long_name="Kuhn poker, ante 2, registered by another project",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2, min_num_players=2, provides_information_state_string=True,
    provides_information_state_tensor=True, provides_observation_string=True,
    provides_observation_tensor=True, parameter_specification={})


class ExternalKuhnGame(kuhn_poker_ante.KuhnPokerAnteGame):
  """``kuhn_poker_ante(ante=2.0)`` under another game type."""

  def __init__(self, params=None):
    del params  # The game has none.
    pyspiel.Game.__init__(self, GAME_TYPE, kuhn_poker_ante.game_info(self.rules), {})

  @property
  def rules(self):
    return kuhn_poker_ante.rules_from_params({"ante": 2.0})


if SHORT_NAME not in pyspiel.registered_names():
  pyspiel.register_game(GAME_TYPE, ExternalKuhnGame)
