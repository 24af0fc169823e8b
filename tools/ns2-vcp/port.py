"""Ports VCP 0.1 (Yong Xia, 2006; the ``vcp/`` directory of ns-2.29) into an ns-2.35
source tree, as tools/ns2-vcp/build.sh needs it (docs/validation.md, "VCP against its
authors' ns-2 code").

    python3 tools/ns2-vcp/port.py NS235_DIR VCP_DIR

``NS235_DIR`` is ns-2.35 as unpacked from Debian's ``ns2_2.35+dfsg.orig.tar.xz``;
``VCP_DIR`` holds VCP's files as its release installs them in ns-2.29: ``vcp/*.cc``,
``vcp/*.h`` and ``tcl/lib/ns-default.tcl`` (the directory ``ns-2.29`` of
github.com/zxxia/ns-2.29 at a52f4ca). The edits, each refused unless its anchor is
found exactly once:

* ``vcp/``: VCP's ten sources copied unchanged, then the instrumentation of
  ``vcp-queue.{h,cc}``: a bound ``lf_trace_`` (default 0) and, when it is 1, a call to the
  OTcl instproc ``lf-trace`` with each interval's measurement (no effect on the
  algorithm);
* ``common/flags.h``: VCP's ``lf_`` field and its ``lf()`` accessor (as in VCP's
  ns-2.29 ``flags.h``);
* ``tcl/lib/ns-default.tcl``: VCP's block of defaults from its ns-2.29
  ``ns-default.tcl``, verbatim, plus ``lf_trace_ 0``;
* ``Makefile.in``: ``-I./vcp``, VCP's objects, and ``common/tclcl-int64-shim.o``
  (``tclcl-int64-shim.cc``, copied from beside this file: a build adaptation for
  Debian's tclcl, not part of VCP).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCES = [
    "drop-tail2.cc",
    "drop-tail2.h",
    "vcp-cmn.cc",
    "vcp-cmn.h",
    "vcp-queue.cc",
    "vcp-queue.h",
    "vcp-sink.cc",
    "vcp-sink.h",
    "vcp-src.cc",
    "vcp-src.h",
]


def edit(path: Path, anchor: str, text: str, before: bool = False) -> None:
    """Inserts ``text`` after (or ``before``) the one occurrence of ``anchor``."""
    s = path.read_text(encoding="latin-1")
    if s.count(anchor) != 1:
        sys.exit(f"{path}: expected {anchor!r} once, found it {s.count(anchor)} times")
    i = s.index(anchor) + (0 if before else len(anchor))
    path.write_text(s[:i] + text + s[i:], encoding="latin-1")


def vcp_sources(ns: Path, vcp: Path) -> None:
    (ns / "vcp").mkdir(exist_ok=True)
    for f in SOURCES:
        shutil.copyfile(vcp / "vcp" / f, ns / "vcp" / f)
    q = ns / "vcp"
    edit(
        q / "vcp-queue.h",
        "  unsigned int    utilization_adjustment_counter_;\n",
        "\n  // instrumentation added for the ns-2.35 port: when lf_trace_ != 0,\n"
        '  // every load measurement calls the OTcl instproc "lf-trace" (no effect on the '
        "algorithm)\n  int             lf_trace_;\n",
    )
    edit(
        q / "vcp-queue.cc",
        '  bind("load_measurement_interval_", &load_measurement_interval_);\n',
        '  bind("lf_trace_", &lf_trace_);  // instrumentation (ns-2.35 port)\n',
    )
    edit(
        q / "vcp-queue.cc", "  // adjust target utilization every a number", INSTRUMENT, before=True
    )


INSTRUMENT = """\
  // instrumentation (ns-2.35 port): report this interval's measurement.
  // args: time, interval length, util (incl. queue term), lf (real, %), load_factor_ (int %),
  //       code sent for the next interval, gamma used, steady_queue_ (bytes), load_ (bytes),
  //       mean sampled queue this interval (bytes), number of queue samples
  if (a_->lf_trace_)
    Tcl::instance().evalf("%s lf-trace %.6f %.6f %.6f %.4f %u %u %.4f %u %u %u %u", a_->name(),
                          a_->interval_end_, time, util, lfd, (unsigned)a_->load_factor_,
                          (unsigned)a_->load_factor_encoded_, a_->dynamic_target_utilization_,
                          a_->steady_queue_, a_->load_, last_avg_queue, a_->last_queue_times_);

"""


def flags(ns: Path) -> None:
    h = ns / "common" / "flags.h"
    edit(
        h,
        "\t\t\t\t * a window following an approved QS request.\n\t\t\t\t */\n",
        "\tunsigned short lf_;          /* the encoded load factor -xy (VCP) */\n",
    )
    edit(
        h,
        "\tunsigned char& ce() { return ecn_to_echo_; }\n",
        "\tunsigned short& lf() { return lf_; }\n"
        "\t\t\t\t      /* (the encoded load factor in IP header -xy, VCP) */\n",
    )


def defaults(ns: Path, vcp: Path) -> None:
    """VCP's block of its ns-2.29 ns-default.tcl, from ``# vcp -xy`` to its sink's last
    default, before ns-2.35's RED defaults (where it stands in ns-2.29)."""
    lines = (vcp / "tcl" / "lib" / "ns-default.tcl").read_text(encoding="latin-1").splitlines()
    a = lines.index("# vcp -xy")
    b = lines.index("Agent/VcpSink set bytes_ 0")
    block = lines[a : b + 1]
    i = next(k for k, x in enumerate(block) if "load_measurement_interval_" in x) + 1
    block.insert(
        i,
        "Queue/DropTail2/VcpQueue set lf_trace_                 0 ;# instrumentation "
        '(ns-2.35 port): 1 = call "$q lf-trace ..." every t_rho',
    )
    edit(
        ns / "tcl" / "lib" / "ns-default.tcl",
        "Queue/RED set bytes_ true ;",
        "\n".join(block) + "\n\n",
        before=True,
    )


def makefile(ns: Path) -> None:
    m = ns / "Makefile.in"
    edit(m, "-I./tcp -I./sctp -I./common -I./link -I./queue", " -I./vcp")
    edit(
        m,
        "\txcp/xcpq.o xcp/xcp.o xcp/xcp-end-sys.o \\\n",
        "\tvcp/vcp-cmn.o vcp/vcp-src.o vcp/vcp-sink.o vcp/vcp-queue.o vcp/drop-tail2.o \\\n"
        "\tcommon/tclcl-int64-shim.o \\\n",
    )
    shutil.copyfile(HERE / "tclcl-int64-shim.cc", ns / "common" / "tclcl-int64-shim.cc")


def main(argv: list[str]) -> None:
    if len(argv) != 2:
        sys.exit(__doc__)
    ns, vcp = Path(argv[0]), Path(argv[1])
    vcp_sources(ns, vcp)
    flags(ns)
    defaults(ns, vcp)
    makefile(ns)
    print(f"VCP 0.1 ported into {ns}")


if __name__ == "__main__":
    main(sys.argv[1:])
