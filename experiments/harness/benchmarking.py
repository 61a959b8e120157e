"""What the benchmark scripts share: CPU-time rates, the machine they ran on, peak memory.

* ``cpu_rate``: the median rate of a step over repeats of CPU time (``time.process_time``), the
  rate every benchmark reports, so that time other processes hold a shared core is not counted;
* ``describe_machine``: the machine, the versions and the load average, printed first;
* ``memory_bytes`` and ``reset_peak_memory``: the current and the peak resident set size of
  this process, which count every byte a run touches, also the arrays compiled (numba) kernels
  allocate, which ``tracemalloc`` does not see. The peak only goes up, so a run is measured in a
  fresh process whose peak is reset to its current size just before the run (Linux: writing 5
  to ``/proc/self/clear_refs``); the imports' own transient peak would hide a smaller run.
"""

import math
import os
import platform
import re
import resource
import statistics
import sys
import time
from typing import Callable, Tuple

import numpy as np


def cpu_rate(step: Callable[[int], None], seconds: float, repeats: int) -> float:
  """Median iterations per CPU second of ``step(n)`` (n iterations) over ``repeats`` repeats,
  n chosen so that one repeat takes about ``seconds``."""
  n, spent = 1, 0.0
  while True:  # Calibration.
    start = time.process_time()
    step(n)
    spent = time.process_time() - start
    if spent >= min(0.05, seconds / 4):
      break
    n *= 2
  n = max(1, int(math.ceil(n * seconds / max(spent, 1e-9))))
  rates = []
  for _ in range(repeats):
    start = time.process_time()
    step(n)
    rates.append(n / max(time.process_time() - start, 1e-12))
  return statistics.median(rates)


def describe_machine() -> None:
  """Prints the machine, the versions of the numerical libraries and the load average."""
  cpu = platform.processor() or platform.machine()
  try:
    with open("/proc/cpuinfo", encoding="utf-8") as f:
      cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
  except (OSError, StopIteration):
    pass
  versions = {"python": platform.python_version(), "numpy": np.__version__}
  for module in ("numba", "open_spiel", "LiteEFG"):
    try:
      from importlib import metadata  # noqa: PLC0415
      versions[module] = metadata.version(module)
    except Exception:  # noqa: BLE001  (not installed)
      versions[module] = "not installed"
  print(f"Machine: {platform.platform()}, {cpu}, {os.cpu_count()} cores; "
        f"{time.strftime('%Y-%m-%d %H:%M')}")
  print("Versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()))
  print("Load average (1, 5, 15 min) at the start: "
        + ", ".join(f"{x:.2f}" for x in os.getloadavg()))


def memory_bytes() -> Tuple[int, int]:
  """(current, peak) resident set size of this process in bytes: VmRSS and VmHWM of
  ``/proc/self/status`` (Linux); elsewhere the peak ``ru_maxrss`` for both."""
  try:
    with open("/proc/self/status", encoding="utf-8") as f:
      status = f.read()
    return tuple(1024 * int(re.search(rf"{key}:\s+(\d+) kB", status).group(1))
                 for key in ("VmRSS", "VmHWM"))
  except (OSError, AttributeError):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # bytes on macOS, kB on Linux
    peak = peak if sys.platform == "darwin" else 1024 * peak
    return peak, peak


def reset_peak_memory() -> bool:
  """Resets this process's peak resident set size to its current size (Linux); False where that
  is not possible, and the peak then includes what this process did before."""
  try:
    with open("/proc/self/clear_refs", "w", encoding="utf-8") as f:
      f.write("5")
  except OSError:
    return False
  return True
