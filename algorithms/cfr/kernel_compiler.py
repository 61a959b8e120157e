"""The decorator of every compiled function: numba, with an on-disk cache keyed on all kernels.

Numba caches machine code on disk (``cache=True``) and checks a cached function against the
source file that defines it, nothing else (numba issue #1833). A compiled function carries
inlined copies of the compiled functions it calls, so a caller in ``range_kernel.py`` that calls
the update rules of ``cfr_kernel.py`` would go on loading stale code after an edit of the rules.
``kernel`` closes that gap: the freshness stamp of every cached function is one digest of the
bytes of all kernel modules, the files ``*_kernel.py`` of this package, so editing any of them
recompiles every kernel on the next import, and an unchanged checkout loads them all from the
cache.

Everything else is numba's own: the same cache folders in the same order (``NUMBA_CACHE_DIR``,
the source's ``__pycache__``, the user-wide folder) and ``error_model="numpy"`` (division by
zero gives inf or nan, as numpy does, rather than raising).

What it subclasses is numba's internals, not its public interface (``numba.core.caching``'s
``FunctionCache``, ``CompileResultCacheImpl`` and its ``_locator_classes``, the dispatcher's
``_cache``): pyproject.toml pins the numba release they were written for, and
tests/test_algorithms/cfr/test_kernel_compiler.py names the one that changed on an upgrade.
"""

import functools
import hashlib
import pathlib
from typing import Callable, Optional, Tuple

import numba
from numba.core import caching

_KERNEL_FOLDER = pathlib.Path(__file__).resolve().parent


def kernel_modules() -> Tuple[pathlib.Path, ...]:
  """The kernel modules: the files ``*_kernel.py`` of this package, sorted by name."""
  return tuple(sorted(_KERNEL_FOLDER.glob("*_kernel.py")))


@functools.lru_cache(maxsize=None)
def sources_digest(paths: Tuple[pathlib.Path, ...]) -> str:
  """The SHA-256 of the files' names and bytes, in order (memoised per process)."""
  digest = hashlib.sha256()
  for path in paths:
    digest.update(path.name.encode())
    digest.update(path.read_bytes())
  return digest.hexdigest()


class _KernelsStamp:
  """A cache locator mixin: a function's source stamp is the digest of all kernel modules."""

  def get_source_stamp(self) -> str:
    return sources_digest(kernel_modules())


def _stamped(locator: type) -> type:
  """``locator`` with the stamp of ``_KernelsStamp``."""
  return type("Kernels" + locator.__name__, (_KernelsStamp, locator), {})


class _KernelCacheImpl(caching.CompileResultCacheImpl):
  """Numba's cache of compiled functions with the kernels' stamp, in numba's folders."""

  _locator_classes = [_stamped(caching.UserProvidedCacheLocator),
                      _stamped(caching.InTreeCacheLocator),
                      _stamped(caching.UserWideCacheLocator)]


class _KernelCache(caching.FunctionCache):
  """``FunctionCache`` (what ``cache=True`` installs) with ``_KernelCacheImpl``."""

  _impl_class = _KernelCacheImpl


def kernel(function: Optional[Callable] = None, *, inline: bool = False) -> Callable:
  """``numba.njit(error_model="numpy")`` with the on-disk cache of the module docstring.

  Use as ``@kernel``, or ``@kernel(inline=True)`` for a helper that numba should inline into
  its compiled callers (``inline="always"``: its body is copied into theirs before
  compilation, so no call passes the callers' arrays and tuples; worth it for helpers called
  per node of small trees, measured 1.7x on ``range_kernel``'s iterations at 13 cards).
  """
  def decorate(f: Callable) -> Callable:
    compiled = numba.njit(error_model="numpy", inline="always" if inline else "never")(f)
    compiled._cache = _KernelCache(f)  # pylint: disable=protected-access
    return compiled
  return decorate if function is None else decorate(function)
