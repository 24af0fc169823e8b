"""The data-centre classics (issue 46), each expectation stated and checked as for the
papers:

- ``dc-incast`` (:mod:`.incast`): TCP's goodput collapse as synchronized senders grow,
  and DCTCP avoiding it (Vasudevan et al. 2009; Alizadeh et al. 2010 §4.2.2);
- ``dc-websearch`` (:mod:`.websearch`): short-flow FCT slowdown under the web-search
  workload at 30-70 % load, DCTCP against TCP and CUBIC (Alizadeh et al. 2010 §4.3);
- ``dc-ecmp`` (:mod:`.ecmp`): ECMP collisions of long flows in a permutation on a
  fat-tree, throughput below full bisection (Al-Fares et al. 2008; Raiciu et al. 2011),
  against the max-min fair allocation of the paths the hash chose;
- ``dc-pfc`` (:mod:`.pfc`): PFC's congestion spreading, an incast's pause frames slowing
  a victim flow that shares no bottleneck with it (Zhu et al. 2015 §2.2);
- ``dc-hpcc`` (:mod:`.hpcc`, issue 47): web-search FCT slowdown by flow size on a
  lossless fat-tree, HPCC against DCQCN, TIMELY and DCTCP (Li et al. 2019 §5.2, Fig. 9).

:mod:`.common` holds what they share (the 1-Gb/s port, its buffer and DCTCP marker, the
transports, fat-tree names). A further classic is one more module here defining an
``EXPERIMENT`` (runs, metrics, checks, plot) and one line in ``EXPERIMENTS`` below.
"""

from __future__ import annotations

from . import ecmp, hpcc, incast, pfc, websearch

EXPERIMENTS = [
    incast.EXPERIMENT,
    websearch.EXPERIMENT,
    ecmp.EXPERIMENT,
    pfc.EXPERIMENT,
    hpcc.EXPERIMENT,
]

__all__ = ["EXPERIMENTS", "ecmp", "hpcc", "incast", "pfc", "websearch"]
