#!/bin/sh
# Builds ns-2.35 with VCP 0.1 (Xia, Subramanian, Stoica & Kalyanaraman, "One more bit is
# enough", SIGCOMM 2005; the authors' ns-2 code, Yong Xia 2006), the reference of
# `ccsim validate vcp` (docs/validation.md), from public sources:
#
#   * ns-2.35: Debian's source tarball ns2_2.35+dfsg.orig.tar.xz (checked by SHA-256);
#   * VCP 0.1: its ns-2.29 files in github.com/zxxia/ns-2.29 at commit a52f4ca
#     (ns-2.29/vcp/*.cc, *.h and ns-2.29/tcl/lib/ns-default.tcl, each checked by SHA-256),
#     ported by port.py beside this file: VCP's sources unchanged but for an optional
#     trace of the router's measurements, its lf_ field in common/flags.h, its defaults
#     in ns-default.tcl, its objects in Makefile.in;
#
# configured against the system's Tcl/Tk 8.6, OTcl and TclCL and built with -O2. One
# build adaptation: tclcl-int64-shim.cc, since Debian's libtclcl (1.20) lacks the
# int64_t bind that ns-2.35's queue monitor uses.
#
#   tools/ns2-vcp/build.sh [DIR]        # default ./ns2-vcp; about 3 min on 2 cores
#   export CCSIM_NS2_VCP=DIR/ns-2.35/ns
#
# Needs (Debian, Ubuntu): apt-get install build-essential curl tcl-dev tk-dev
#   libotcl1-dev libtclcl1-dev tclcl libxext-dev libxt-dev libpcap0.8-dev
#   libperl4-corelibs-perl
# Offline: NS2_TARBALL=/path/to/ns2_2.35+dfsg.orig.tar.xz and VCP_DIR=/path/to/ns-2.29
# (a directory with vcp/ and tcl/lib/ns-default.tcl) skip the downloads.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-ns2-vcp}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

NS2_URL=http://deb.debian.org/debian/pool/main/n/ns2/ns2_2.35+dfsg.orig.tar.xz
NS2_SHA256=a3a097194c87fedbf2a7d3c8520790dc8688874cad0373af2db0ed33e463d52e
VCP_URL=https://raw.githubusercontent.com/zxxia/ns-2.29/a52f4ca6896a3875947e7e6942bef8d5b8abafc1/ns-2.29
VCP_FILES="
bb417373014bf51279284f80ffe1213bc827738945884fad0e007b746dcddead vcp/drop-tail2.cc
812337c45ed91f1fba37431a000781de86d75c2bf4bc0ad5d6116eb32c00747c vcp/drop-tail2.h
b5c898631384933277343738e50da9d3809a1049ed726d2d22491bc725be85ef vcp/vcp-cmn.cc
2b1ae24d512b715fb8991c7f2a0a68f8c694251f55fb0e8b9e9d2e892da64ed8 vcp/vcp-cmn.h
be7bc8eaf81af6d856092aec0e4dc45c66d0a328c359b97fd41bcb0cb58ac11a vcp/vcp-queue.cc
2e42bf41c0e3eb64396ac7c6d89e84d26f657ee2d68a7aefc14df63f66795a74 vcp/vcp-queue.h
b4f2ffe989ce167c64f8492b0941947d464d3ff796480d973ad9b739e131eb76 vcp/vcp-sink.cc
d5fae3cc2648909ea75a847e03c452ff881068d34e7008153e6570bb4d2b37f8 vcp/vcp-sink.h
7e87e197df5ff2f0ca4f30ab6a873c038ca1f57100915ab08e730b4095f98fd5 vcp/vcp-src.cc
8e82c5598ca0ecb0ff53c5d7fdbecf642bd4ae9fcf62f56acba2b01cc42fe8e0 vcp/vcp-src.h
d5d77a62a0ca3e360651ed167db341dd0de1f1150ef04066e602f7699c16c8dc tcl/lib/ns-default.tcl
"

# ns-2.35
TARBALL=${NS2_TARBALL:-$OUT/ns2_2.35+dfsg.orig.tar.xz}
[ -f "$TARBALL" ] || curl -fL -o "$TARBALL" "$NS2_URL"
echo "$NS2_SHA256  $TARBALL" | sha256sum -c -
rm -rf "$OUT/ns-2.35"
tar xJf "$TARBALL" -C "$OUT"

# VCP 0.1
VCP=${VCP_DIR:-$OUT/vcp-0.1}
echo "$VCP_FILES" | while read -r sum f; do
    [ -n "$f" ] || continue
    if [ ! -f "$VCP/$f" ]; then
        mkdir -p "$VCP/$(dirname "$f")"
        curl -fL -o "$VCP/$f" "$VCP_URL/$f"
    fi
    echo "$sum  $VCP/$f" | sha256sum -c -
done
python3 "$HERE/port.py" "$OUT/ns-2.35" "$VCP"

# The system's Tcl/Tk, OTcl and TclCL, laid out as ns-2's configure looks for them.
ARCH=$(gcc -print-multiarch)
D=$OUT/deps
rm -rf "$D"
mkdir -p "$D/tcl/lib" "$D/tk/lib" "$D/otcl/include" "$D/otcl/lib" "$D/tclcl/lib" "$D/tclcl/bin"
for x in tcl tk; do
    ln -s /usr/include/tcl8.6 "$D/$x/include"
    ln -s "/usr/include/tcl8.6/$x-private/generic" "$D/$x/generic"
    ln -s "/usr/share/tcltk/${x}8.6" "$D/$x/library"
    ln -s "/usr/lib/$ARCH/lib${x}8.6.so" "$D/$x/lib/lib${x}8.6.so"
done
ln -s /usr/include/tcl8.6/tcl-private/unix "$D/tcl/unix"
ln -s /usr/include/otcl.h "$D/otcl/include/otcl.h"
ln -s "/usr/lib/$ARCH/libotcl.so" "$D/otcl/lib/libotcl.so"
ln -s /usr/include/tclcl "$D/tclcl/include"
ln -s "/usr/lib/$ARCH/libtclcl.so" "$D/tclcl/lib/libtclcl.so"
ln -s /usr/bin/tcl2c++ "$D/tclcl/bin/tcl2c++"

cd "$OUT/ns-2.35"
./configure --with-tcl="$D/tcl" --with-tcl-ver=8.6 --with-tk="$D/tk" --with-tk-ver=8.6 \
    --with-otcl="$D/otcl" --with-tclcl="$D/tclcl" > "$OUT/configure.log"
# ns-2.35's C++ is of its time: gnu++98, permissive; Tcl 8.6 without interp->result.
CCOPT='-O2 -Wall -Wno-write-strings -std=gnu++98 -fpermissive -DUSE_INTERP_RESULT -DUSE_INTERP_ERRORLINE'
nice make -j"${JOBS:-2}" CCOPT="$CCOPT" ns > "$OUT/make.log" 2>&1 || {
    tail -30 "$OUT/make.log"
    exit 1
}
echo "built $OUT/ns-2.35/ns"
echo "export CCSIM_NS2_VCP=$OUT/ns-2.35/ns"
