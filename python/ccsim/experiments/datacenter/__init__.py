"""The data-centre classics (issue 46), each expectation stated and checked as for the
papers:

- ``dc-incast`` (:mod:`.incast`): TCP's goodput collapse as synchronized senders grow,
  and DCTCP avoiding it (Vasudevan et al. 2009; Alizadeh et al. 2010 §4.2.2);
- ``dc-websearch`` (:mod:`.websearch`): short-flow FCT slowdown under the web-search
  workload at 30-70 % load, DCTCP against TCP and CUBIC (Alizadeh et al. 2010 §4.3);
- ``dc-ecmp`` (:mod:`.ecmp`): ECMP collisions of long flows in a permutation on a
  fat-tree, throughput below full bisection (Al-Fares et al. 2008; Raiciu et al. 2011),
  against the max-min fair allocation of the paths the hash chose.

:mod:`.common` holds what they share (the 1-Gb/s port, its buffer and DCTCP marker, the
transports, fat-tree names). A further classic is one more module here defining an
``EXPERIMENT`` (runs, metrics, checks, plot) and one line in ``EXPERIMENTS`` below:
PFC's congestion spreading (a victim flow sharing no bottleneck with an incast, paused
by the pause frames the incast's port sends upstream) goes in ``pfc.py`` once the engine
has PFC, reusing :func:`.common.queue`, :func:`.common.transport` and the fat-tree names.
"""

from __future__ import annotations

from . import ecmp, incast, websearch

EXPERIMENTS = [incast.EXPERIMENT, websearch.EXPERIMENT, ecmp.EXPERIMENT]

__all__ = ["EXPERIMENTS", "ecmp", "incast", "websearch"]
