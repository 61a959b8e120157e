"""The three-player stall diagnosis: CFR+'s current policy cycles on 6 cards, not on 4."""

from experiments.scripts import three_player_stall


def test_cfr_plus_cycles_on_six_cards_and_settles_on_four():
  # Measured by the script at 20,000 iterations (docs/three_player_large_deck.md): the largest
  # swing of a current probability over the last 2,000 iterations is 0.01 on 4 cards and 0.61
  # on 6; the same at 6,000 iterations and a 1,000-iteration window.
  four = three_player_stall.run("CFR+", 4, 6000, 1000)
  six = three_player_stall.run("CFR+", 6, 6000, 1000)
  assert four.swing < 0.05 < 0.3 < six.swing
  # The average stalls where the iterates cycle: NashConv certified on 4 cards, not on 6.
  assert four.average_nash_conv[-1] < 1e-4 < 1e-3 < six.average_nash_conv[-1]
  # PCFR+'s prediction damps the cycle: on 8 cards its swing is 0.08 after 6,000 iterations
  # (0.008 after 20,000), CFR+'s 0.56.
  predictive = three_player_stall.run("PCFR+", 8, 6000, 1000)
  assert predictive.swing < 0.2


def test_bad_arguments_exit_2(tmp_path, capsys):
  assert three_player_stall.main(["--iterations", "50", "--out", str(tmp_path)]) == 2
  assert capsys.readouterr().err.startswith("error: need --window >= 10")
  assert not any(tmp_path.iterdir())
