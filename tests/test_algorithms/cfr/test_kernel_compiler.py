"""The compiled functions' disk cache is keyed on every kernel module (``kernel_compiler``).

Reference: numba's own locator, which stamps a cached function with its defining file only
(numba issue #1833): the negative control showing what ``kernel`` changes.
"""

import pathlib

from numba.core import caching

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
