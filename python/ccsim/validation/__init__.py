"""``ccsim validate``: how far ccsim's models stand from a reference simulator.

Each suite (:data:`SUITES`) runs its cases in a reference simulator installed on this
machine (ns-2.35, and ns-3 from the Python index) and in ccsim with the reference's
conventions, over seeds, and compares the quantities that matter (utilization, drops, marks,
retransmissions, timeouts, fairness) against stated tolerances; a difference outside
its tolerance either has a known cause (reported with it) or fails the run.
:func:`validate` runs the suites and writes a report; with ``write`` it regenerates
the suites' blocks of ``docs/validation.md``, stamped with the ccsim fingerprint and
the reference's version. Where a reference is not installed, its suites are skipped
with one line saying how to install it.

The suites are listed in :mod:`.suites`, run and reported by :mod:`.runner`; what a
suite, a verdict and a tolerance are is :mod:`.framework`'s. This package's own names
are those of :mod:`.suites` and :mod:`.runner` that ``ccsim validate`` uses.
"""

from ccsim.validation.runner import MARK_BEGIN, MARK_END, Report, summary_rows, validate
from ccsim.validation.suites import SUITES, reference_version, select

__all__ = [
    "MARK_BEGIN",
    "MARK_END",
    "SUITES",
    "Report",
    "reference_version",
    "select",
    "summary_rows",
    "validate",
]
