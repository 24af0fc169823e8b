"""Suites against htsim (Broadcom/csg-htsim): ``reference`` (where htsim is, and the
fat-tree program of ``tools/htsim/`` built against it), ``fabric_scenario`` (one
description written for both simulators, run and read back), ``fabric_suite``."""
