// The dumbbell of bulk TCP flows that ccsim's ns-3 harnesses share
// (ccsim.validation.ns3.dumbbell compiles it with one harness's main): `pairs`
// sender/receiver pairs, each on access links of its own, over one bottleneck from
// router 0 to router 1. A draws file gives each pair's start time and access delay, the
// numbers ns-2 and ccsim get for the same case and seed.
//
// Conventions (module docs of ccsim.validation.ns3.bulk_tcp and .modern_cc_aqm):
// no TCP options in data segments, an ACK per segment, 16-MB socket buffers; link
// rates scaled by 1002/1000 for the 2-byte PPP header, so that an IP packet takes the
// serialization time it takes in ns-2 and ccsim; ns-3's default FqCoDel disc removed
// from every device, so each device's own DropTail queue is its buffer unless the
// harness installs a disc of its own on the bottleneck.
#ifndef CCSIM_DUMBBELL_H
#define CCSIM_DUMBBELL_H

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <functional>
#include <string>
#include <vector>

using namespace ns3;

// What every harness reads from its command line (AddTo); each sets its own defaults
// before.
struct DumbbellOptions
{
    std::string cc = "ns3::TcpNewReno";
    bool sack = false;
    uint32_t pairs = 1, mss = 960, buffer = 100;
    double rateMbps = 10, delayMs = 20, accessMbps = 100, duration = 60, warmup = 10;
    std::string draws;

    void AddTo(CommandLine& cmd);
};

// Each pair's start time (s) and access delay (ms), from the draws file (one line per
// pair: start_s delay_ms).
struct Draws
{
    std::vector<double> starts, delays;
};

Draws ReadDraws(const DumbbellOptions& o);

// The TCP settings every harness shares: the congestion control (a TypeId name), SACK,
// no timestamps, the minimum RTO, segment size, initial window, an ACK per segment and
// 16-MB send and receive buffers.
void SetTcpDefaults(const std::string& cc,
                    bool sack,
                    uint32_t mss,
                    uint32_t initCwnd,
                    double minRtoMs);

struct Dumbbell
{
    NodeContainer routers, senders, receivers;
    // The bottleneck: core.Get(0) on router 0 sends toward the receivers.
    NetDeviceContainer core;
    std::vector<Ipv4Address> dst;
    std::vector<Ptr<BulkSendApplication>> apps;
    std::vector<Ptr<PacketSink>> sinks;
};

// The nodes, their internet stacks and the bottleneck link, whose devices queue
// `deviceQueue` packets; no queue disc on it (a harness may install its own).
void BuildCore(Dumbbell& net, const DumbbellOptions& o, uint32_t deviceQueue);

// The access links (device queues of `accessQueue` packets, each pair's delay on both
// sides; with `jitter` > 0 over a JitterChannel), addresses and routes.
void BuildAccess(Dumbbell& net,
                 const DumbbellOptions& o,
                 const Draws& d,
                 uint32_t accessQueue,
                 double jitter);

// A bulk flow per pair from its start time to the end, created by the socket factory
// `factory` names for the sender; `hook` connects flow i's traces to its socket just
// after the start (false: they could not be connected).
using SocketFactoryOf = std::function<std::string(Ptr<Node>)>;
using FlowHook = std::function<bool(uint32_t, Ptr<Socket>)>;
void InstallFlows(Dumbbell& net,
                  const DumbbellOptions& o,
                  const Draws& d,
                  const SocketFactoryOf& factory,
                  const FlowHook& hook);

// A point-to-point channel that delays each packet by a uniform random time in
// [0, jitter) more, in each direction never before the packet ahead of it: ccsim's link
// `jitter`, the phase-breaking jitter of the modern suite's jittered cases.
class JitterChannel : public PointToPointChannel
{
  public:
    static TypeId GetTypeId();
    bool TransmitStart(Ptr<const Packet> p, Ptr<PointToPointNetDevice> src, Time txTime) override;

    static double s_jitter;
    static Ptr<UniformRandomVariable> s_rng;

  private:
    Time m_last[2];
};

#endif
