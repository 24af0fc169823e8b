#!/bin/sh
# Builds tools/htsim/fabric.cpp against a built htsim (Broadcom/csg-htsim):
#
#   git clone https://github.com/Broadcom/csg-htsim && (cd csg-htsim/sim && make -j2 &&
#       cd datacenter && make -j2)
#   tools/htsim/build.sh /path/to/csg-htsim/sim      # writes /path/to/csg-htsim/sim/fabric
#   export CCSIM_HTSIM_DIR=/path/to/csg-htsim/sim
#
# The program links htsim's library (libhtsim.a) and the fat-tree objects of its
# datacenter/ directory, unchanged.
set -eu
SIM=${1:-${CCSIM_HTSIM_DIR:?give the htsim sim/ directory or set CCSIM_HTSIM_DIR}}
HERE=$(cd "$(dirname "$0")" && pwd)
DC="$SIM/datacenter"
for o in fat_tree_topology.o fat_tree_switch.o firstfit.o connection_matrix.o; do
    [ -f "$DC/$o" ] || { echo "no $DC/$o: run make in $SIM and $DC first" >&2; exit 1; }
done
g++ -std=c++17 -O2 -w -I"$SIM" -I"$DC" "$HERE/fabric.cpp" \
    "$DC/fat_tree_topology.o" "$DC/fat_tree_switch.o" "$DC/firstfit.o" "$DC/connection_matrix.o" \
    -L"$SIM" -lhtsim -o "$SIM/fabric"
echo "$SIM/fabric"
