"""Training a PBS value function with PyTorch (the optional extra ``learn``).

ReBeL's value network and loss (Brown, Bakhtin, Lerer, Gong, NeurIPS 2020, arXiv 2007.13544,
Section 4 and its released configuration): an MLP of ``len(hidden)`` blocks Linear -> LayerNorm
-> GELU and a linear output, trained with Adam on the Huber (smooth L1) loss between the
predicted and target values (per deal, or per player and card: ``LeafDomain.targets``; a card
without belief mass has no target and no loss), both in units of each example's ante + bet (a
family model, ``LeafDomain.stakes``, learns from examples of several stakes at once); the output
layer starts at 1/100 of PyTorch's default initialisation, as ReBeL's, so that the first
predictions are near 0.

Reproducible: the initial weights and the minibatches come from ``seed`` alone, and the training
runs on one thread (``torch.set_num_threads(1)`` for its duration, restored afterwards), so the
same call gives the same weights bit for bit on one machine.

PyTorch is imported when a model is trained, not when the module is imported; without it,
``train`` raises ``ImportError`` naming the extra to install.
"""

import contextlib
import dataclasses
from typing import Iterator, List, Optional, Sequence, Tuple

import numpy as np

from algorithms.rebel.learning.dataset import Dataset
from algorithms.rebel.learning.value_network import LeafDomain
from algorithms.rebel.learning.value_network import PBSValueFunction

INSTALL_HINT = "pip install -e '.[learn]' (PyTorch 2.13.0, CPU)"


def require_torch():
  """Imports and returns torch, or raises ImportError with the install command."""
  try:
    import torch  # pylint: disable=import-outside-toplevel
  except ImportError:
    raise ImportError(f"training a value function needs PyTorch: {INSTALL_HINT}") from None
  return torch


@dataclasses.dataclass(frozen=True)
class TrainingOptions:
  """Hyperparameters (defaults: ReBeL's architecture; steps and batch sized for Kuhn).

  Attributes:
    hidden: hidden layer widths.
    steps: Adam steps.
    batch_size: examples per step (sampled with replacement).
    learning_rate: Adam's step size; it is halved at 1/2 and 3/4 of the steps.
    huber_delta: the Huber loss's threshold (in value units).
    seed: seeds the weights and the batches.
  """

  hidden: Tuple[int, ...] = (256, 256)
  steps: int = 2000
  batch_size: int = 256
  learning_rate: float = 1e-3
  huber_delta: float = 1.0
  seed: int = 0

  def __post_init__(self):
    for name in ("steps", "batch_size"):
      value = getattr(self, name)
      if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    if not self.learning_rate > 0 or not self.huber_delta > 0:
      raise ValueError("learning_rate and huber_delta must be > 0")
    if not self.hidden or any(int(h) < 1 for h in self.hidden):
      raise ValueError(f"hidden must be one or more widths >= 1, got {self.hidden!r}")


@contextlib.contextmanager
def _one_thread(torch) -> Iterator[None]:
  previous = torch.get_num_threads()
  torch.set_num_threads(1)
  try:
    yield
  finally:
    torch.set_num_threads(previous)


def _network(torch, domain: LeafDomain, hidden: Sequence[int]):
  nn = torch.nn
  layers = []
  width = domain.input_size
  for h in hidden:
    layers += [nn.Linear(width, h), nn.LayerNorm(h), nn.GELU()]
    width = h
  out = nn.Linear(width, domain.num_outputs)
  with torch.no_grad():
    out.weight.mul_(0.01)
    out.bias.mul_(0.01)
  return nn.Sequential(*layers, out)


def _export(net, hidden: Sequence[int]) -> dict:
  """The network's parameters in ``PBSValueFunction``'s layout."""
  params = {}
  modules = list(net)
  for k in range(len(hidden)):
    linear, norm = modules[3 * k], modules[3 * k + 1]
    params.update({f"w{k}": linear.weight, f"b{k}": linear.bias, f"g{k}": norm.weight,
                   f"n{k}": norm.bias})
  params.update({"w_out": modules[-1].weight, "b_out": modules[-1].bias})
  return {name: p.detach().numpy().copy() for name, p in params.items()}


class Trainer:
  """A network being trained (supervised, or across self-play rounds).

  ``fit(data, steps)`` runs Adam steps on minibatches of ``data``; ``model()`` exports the
  current weights as a ``PBSValueFunction`` (numpy). The Adam state persists across ``fit``
  calls.
  """

  def __init__(self, domain: LeafDomain, options: TrainingOptions = TrainingOptions()):
    self.torch = require_torch()
    self.domain = domain
    self.options = options
    self.losses: List[float] = []
    torch = self.torch
    with _one_thread(torch):
      torch.manual_seed(options.seed)
      self.net = _network(torch, domain, options.hidden)
      self.optimizer = torch.optim.Adam(self.net.parameters(), lr=options.learning_rate)
    self.rng = np.random.default_rng(options.seed)
    self.steps_done = 0

  def fit(self, data: Dataset, steps: int) -> float:
    """``steps`` Adam steps on batches drawn from ``data``; returns the mean loss of the last
    tenth of the steps. The learning rate is halved at 1/2 and 3/4 of the ``steps``."""
    torch, o = self.torch, self.options
    if len(data) == 0:
      raise ValueError("no training data")
    features = torch.from_numpy(self.domain.features(data.leaf_index, data.beliefs, data.stakes))
    targets, defined = self.domain.targets(data.beliefs, data.values,
                                           self.domain.units(data.stakes, len(data)))
    targets = torch.from_numpy(targets.astype(np.float32))
    huber = torch.nn.HuberLoss(delta=o.huber_delta, reduction="mean" if defined is None
                               else "none")
    if defined is not None:
      defined = torch.from_numpy(defined.astype(np.float32))

    def batch_loss(batch):
      loss = huber(self.net(features[batch]), targets[batch])
      if defined is None:
        return loss
      mask = defined[batch]  # The mean over the batch's defined targets.
      return (loss * mask).sum() / mask.sum().clamp(min=1.0)

    recent = []
    with _one_thread(torch):
      for step in range(steps):
        lr = o.learning_rate * (0.5 if step >= steps // 2 else 1.0) * \
            (0.5 if step >= 3 * steps // 4 else 1.0)
        for group in self.optimizer.param_groups:
          group["lr"] = lr
        batch = torch.from_numpy(self.rng.integers(0, len(data), o.batch_size))
        loss = batch_loss(batch)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.losses.append(loss.item())
        if step >= steps - max(1, steps // 10):
          recent.append(self.losses[-1])
    self.steps_done += steps
    return float(np.mean(recent))

  def model(self, info: Optional[dict] = None) -> PBSValueFunction:
    notes = {"options": dataclasses.asdict(self.options), "steps_done": self.steps_done}
    notes.update(info or {})
    return PBSValueFunction(self.domain, self.options.hidden,
                            _export(self.net, self.options.hidden), notes)

  def torch_predict(self, leaf_index: np.ndarray, beliefs: np.ndarray,
                    stakes: Optional[np.ndarray] = None) -> np.ndarray:
    """The network's own (PyTorch) per-deal values, for checking the numpy evaluation."""
    torch = self.torch
    units = self.domain.units(stakes, len(leaf_index))
    with torch.no_grad():
      out = self.net(torch.from_numpy(self.domain.features(leaf_index, beliefs, stakes)))
    out = self.domain.per_deal(out.numpy().astype(np.float64))
    return out * units.reshape((-1,) + (1,) * (out.ndim - 1))


def train(domain: LeafDomain, data: Dataset, options: TrainingOptions = TrainingOptions(),
          info: Optional[dict] = None) -> PBSValueFunction:
  """Trains a value function on ``data`` for ``options.steps`` steps (supervised learning)."""
  trainer = Trainer(domain, options)
  final_loss = trainer.fit(data, options.steps)
  notes = {"examples": len(data), "final_loss": final_loss}
  notes.update(info or {})
  return trainer.model(notes)
