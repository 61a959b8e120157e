"""The compiled functions' disk cache is keyed on every kernel module (``kernel_compiler``).

Reference: numba's own locator, which stamps a cached function with its defining file only
(numba issue #1833): the negative control showing what ``kernel`` changes.
"""

import importlib.util
import inspect
import pathlib

import numba
from numba.core import caching
from numba.core import dispatcher

from algorithms.cfr import cfr_kernel
from algorithms.cfr import kernel_compiler
from algorithms.cfr import range_kernel


def test_every_compiled_function_is_in_a_kernel_module():
  """A module outside the digest with compiled functions could load stale inlined code."""
  root = pathlib.Path(kernel_compiler.__file__).resolve().parents[2]
  compiling = {p.resolve() for p in (root / "algorithms").rglob("*.py")
               if "@kernel\n" in p.read_text() or "numba.njit" in p.read_text()}
  compiling.discard(pathlib.Path(kernel_compiler.__file__).resolve())  # the decorator itself
  assert compiling == set(kernel_compiler.kernel_modules())
  assert {"cfr_kernel.py", "range_kernel.py"} <= {p.name for p in compiling}


def test_every_compiled_function_carries_the_digest_of_all_kernels():
  digest = kernel_compiler.sources_digest(kernel_compiler.kernel_modules())
  for function in (cfr_kernel.match_block, cfr_kernel.exact_iterations,
                   range_kernel.iterations, range_kernel.player_pass):
    locator = function._cache._impl.locator  # pylint: disable=protected-access
    assert locator.get_source_stamp() == digest
    # Numba's own stamp would be the defining file's alone.
    own = caching.InTreeCacheLocator(function.py_func, function.py_func.__code__.co_filename)
    assert own.get_source_stamp() != digest


def test_digest_changes_with_any_kernel_file(tmp_path: pathlib.Path):
  a, b = tmp_path / "a_kernel.py", tmp_path / "b_kernel.py"
  a.write_text("x = 1\n")
  b.write_text("y = 2\n")
  before = kernel_compiler.sources_digest((a, b))
  b.write_text("y = 3\n")  # an edit of the other file (a caller's callee)
  assert kernel_compiler.sources_digest.__wrapped__((a, b)) != before


# ---------------------------------------------------------------------------------------------
# The numba internals ``kernel`` relies on (pinned in pyproject.toml). Each check names the one
# that changed, so that an upgrade of numba fails here, loudly, rather than silently loading stale
# machine code or caching nothing.


def _changed(what: str) -> str:
  return (f"numba {numba.__version__}: {what}. kernel_compiler subclasses numba.core.caching as "
          "numba 0.68 wrote it: adapt kernel_compiler to this release, then the numba range in "
          "pyproject.toml")


def test_numba_cache_classes_kernel_subclasses_are_unchanged():
  for name in ("CompileResultCacheImpl", "FunctionCache", "UserProvidedCacheLocator",
               "InTreeCacheLocator", "UserWideCacheLocator"):
    assert isinstance(getattr(caching, name, None), type), _changed(
        f"numba.core.caching.{name} is gone")
  locators = [caching.UserProvidedCacheLocator, caching.InTreeCacheLocator,
              caching.UserWideCacheLocator]
  assert getattr(caching.CompileResultCacheImpl, "_locator_classes", [])[:3] == locators, (
      _changed("CompileResultCacheImpl._locator_classes no longer starts with the user-provided, "
               "in-tree and user-wide locators"))
  assert getattr(caching.FunctionCache, "_impl_class", None) is caching.CompileResultCacheImpl, (
      _changed("FunctionCache._impl_class is no longer CompileResultCacheImpl"))
  for locator in locators:
    for method in ("get_source_stamp", "from_function", "get_cache_path"):
      assert callable(getattr(locator, method, None)), _changed(
          f"{locator.__name__}.{method} is gone")
  # ``cache=True`` installs the disk cache as the dispatcher's ``_cache``; kernel replaces it.
  enable_caching = inspect.getsource(dispatcher.Dispatcher.enable_caching)
  assert "self._cache = FunctionCache(" in enable_caching, (
      _changed("Dispatcher.enable_caching no longer sets self._cache to a FunctionCache"))


def test_a_kernel_is_saved_and_loaded_through_the_kernel_cache(tmp_path: pathlib.Path):
  """A compiled function's machine code goes to disk through the ``_cache`` that ``kernel`` sets,
  stamped with the digest of all kernel modules, and a second dispatcher of the same function
  loads it back (numba's own ``NullCache`` would save nothing and load nothing)."""
  probe = tmp_path / "probe_kernel.py"
  probe.write_text("from algorithms.cfr.kernel_compiler import kernel\n\n\n"
                   "@kernel\ndef double(x):\n  return 2 * x\n")
  spec = importlib.util.spec_from_file_location("probe_kernel", probe)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  assert module.double(3) == 6
  cache = module.double._cache  # pylint: disable=protected-access
  assert isinstance(cache, kernel_compiler._KernelCache)  # pylint: disable=protected-access
  digest = kernel_compiler.sources_digest(kernel_compiler.kernel_modules())
  assert getattr(getattr(cache, "_cache_file", None), "_source_stamp", None) == digest, _changed(
      "Cache no longer writes its locator's get_source_stamp() into its index file")
  assert list(pathlib.Path(cache.cache_path).glob("probe_kernel.double-*.nbi")), _changed(
      "a dispatcher compiled nothing into the cache set as its _cache")
  again = kernel_compiler.kernel(module.double.py_func)
  assert again(4) == 8
  assert sum(again.stats.cache_hits.values()) == 1, _changed(
      "a dispatcher did not load from the cache set as its _cache")
