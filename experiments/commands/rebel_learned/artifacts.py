"""The experiment's saved data sets and models (``Store``): kept with their recipe and the code
fingerprint, reused by the same code unless ``--fresh``."""

from typing import Any, Callable, Dict, List, Sequence

from algorithms.file_formats import checkpoint
from algorithms.rebel.learning.dataset import Dataset
from algorithms.rebel.learning.value_network import PBSValueFunction
from experiments.harness import provenance
from experiments.harness.context import Context

DATA_KIND = "rebel-learned-data"


class Store:
  """The experiment's saved data sets and models (``data/``, ``models/``).

  A file is reused when its recipe and the code fingerprint match and ``--fresh`` is not given;
  otherwise it is computed and written atomically.
  """

  def __init__(self, ctx: Context):
    self.root = ctx.out
    self.fresh = ctx.fresh
    self.code = provenance.code_stamp()["fingerprint"]
    self.reused = 0
    self.computed = 0

  def dataset(self, name: str, recipe: Dict[str, Any], compute: Callable[[], Dataset]) -> Dataset:
    path = self.root / "data" / f"{name}.npz"
    header = {"kind": DATA_KIND, "recipe": recipe, "code": self.code}
    if path.exists() and not self.fresh:
      try:
        found, arrays = checkpoint.read_checkpoint(str(path))
        if all(found.get(k) == v for k, v in header.items()):
          self.reused += 1
          return Dataset(arrays["leaf_index"], arrays["beliefs"], arrays["values"])
      except (ValueError, KeyError):
        pass  # Unreadable or another format: recomputed and replaced.
    data = compute()
    path.parent.mkdir(parents=True, exist_ok=True)
    checkpoint.write_checkpoint(str(path), header, {
        "leaf_index": data.leaf_index, "beliefs": data.beliefs, "values": data.values})
    self.computed += 1
    return data

  def models(self, names: Sequence[str], recipe: Dict[str, Any],
             train: Callable[[], List[PBSValueFunction]]) -> List[PBSValueFunction]:
    """The models saved under ``names`` for ``recipe``, or ``train()``'s (saved under them)."""
    paths = [self.root / "models" / f"{name}.npz" for name in names]
    if not self.fresh and all(p.exists() for p in paths):
      try:
        found = [PBSValueFunction.load(str(p)) for p in paths]
        if all(m.info.get("recipe") == recipe and m.info.get("code") == self.code
               for m in found):
          self.reused += len(found)
          return found
      except ValueError:
        pass
    trained = train()
    paths[0].parent.mkdir(parents=True, exist_ok=True)
    for model, path in zip(trained, paths):
      model.info.update(recipe=recipe, code=self.code)
      model.save(str(path))
    self.computed += len(trained)
    return trained
