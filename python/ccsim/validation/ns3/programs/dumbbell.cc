// The shared dumbbell (dumbbell.h).
#include "dumbbell.h"

#include <algorithm>
#include <fstream>
#include <sstream>

void
DumbbellOptions::AddTo(CommandLine& cmd)
{
    cmd.AddValue("cc", "congestion control TypeId", cc);
    cmd.AddValue("sack", "SACK", sack);
    cmd.AddValue("pairs", "flows", pairs);
    cmd.AddValue("mss", "segment size", mss);
    cmd.AddValue("buffer", "bottleneck buffer (packets waiting)", buffer);
    cmd.AddValue("rate", "bottleneck Mb/s", rateMbps);
    cmd.AddValue("delay", "bottleneck one-way delay ms", delayMs);
    cmd.AddValue("accessRate", "access Mb/s", accessMbps);
    cmd.AddValue("duration", "s", duration);
    cmd.AddValue("warmup", "s", warmup);
    cmd.AddValue("draws", "file: one line per pair, start_s access_delay_ms", draws);
}

Draws
ReadDraws(const DumbbellOptions& o)
{
    Draws d;
    std::ifstream in(o.draws);
    double a, b;
    while (in >> a >> b)
    {
        d.starts.push_back(a);
        d.delays.push_back(b);
    }
    NS_ABORT_MSG_IF(d.starts.size() != o.pairs, "draws file has " << d.starts.size() << " lines");
    return d;
}

void
SetTcpDefaults(const std::string& cc, bool sack, uint32_t mss, uint32_t initCwnd, double minRtoMs)
{
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TypeId::LookupByName(cc)));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(minRtoMs)));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initCwnd));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(16 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(16 << 20));
}

static const double PPP = 1002.0 / 1000.0; // PPP header: same serialization per IP byte

static QueueSizeValue
Packets(uint32_t n)
{
    return QueueSizeValue(QueueSize(std::to_string(n) + "p"));
}

void
BuildCore(Dumbbell& net, const DumbbellOptions& o, uint32_t deviceQueue)
{
    net.routers.Create(2);
    net.senders.Create(o.pairs);
    net.receivers.Create(o.pairs);
    InternetStackHelper stack;
    stack.InstallAll();

    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", DataRateValue(DataRate(o.rateMbps * 1e6 * PPP)));
    bottleneck.SetChannelAttribute("Delay", TimeValue(MicroSeconds(o.delayMs * 1000)));
    bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", Packets(deviceQueue));
    net.core = bottleneck.Install(net.routers.Get(0), net.routers.Get(1));

    Ipv4AddressHelper addr;
    addr.SetBase("10.255.0.0", "255.255.255.252");
    addr.Assign(net.core);
    TrafficControlHelper().Uninstall(net.core);
}

void
BuildAccess(Dumbbell& net,
            const DumbbellOptions& o,
            const Draws& d,
            uint32_t accessQueue,
            double jitter)
{
    JitterChannel::s_jitter = jitter;
    Ipv4AddressHelper addr;
    TrafficControlHelper none;
    net.dst.resize(o.pairs);
    for (uint32_t i = 0; i < o.pairs; i++)
    {
        PointToPointHelper access;
        access.SetDeviceAttribute("DataRate", DataRateValue(DataRate(o.accessMbps * 1e6 * PPP)));
        access.SetChannelAttribute("Delay", TimeValue(NanoSeconds(int64_t(d.delays[i] * 1e6))));
        access.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", Packets(accessQueue));
        NetDeviceContainer left = access.Install(net.senders.Get(i), net.routers.Get(0));
        NetDeviceContainer right = access.Install(net.routers.Get(1), net.receivers.Get(i));
        for (NetDeviceContainer* link : {&left, &right})
        {
            if (JitterChannel::s_jitter <= 0)
            {
                break;
            }
            // the same devices over a jittering channel
            if (!JitterChannel::s_rng)
            {
                JitterChannel::s_rng = CreateObject<UniformRandomVariable>();
            }
            Ptr<JitterChannel> ch = CreateObject<JitterChannel>();
            ch->SetAttribute("Delay", TimeValue(NanoSeconds(int64_t(d.delays[i] * 1e6))));
            DynamicCast<PointToPointNetDevice>(link->Get(0))->Attach(ch);
            DynamicCast<PointToPointNetDevice>(link->Get(1))->Attach(ch);
        }
        std::ostringstream l, r;
        l << "10." << (i / 250) << "." << (i % 250) << ".0";
        r << "10." << (100 + i / 250) << "." << (i % 250) << ".0";
        addr.SetBase(l.str().c_str(), "255.255.255.0");
        addr.Assign(left);
        addr.SetBase(r.str().c_str(), "255.255.255.0");
        net.dst[i] = addr.Assign(right).GetAddress(1);
        none.Uninstall(left);
        none.Uninstall(right);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
}

static void
HookFlow(FlowHook hook, uint32_t i, Ptr<BulkSendApplication> app)
{
    Ptr<Socket> s = app->GetSocket();
    NS_ABORT_MSG_IF(!s, "no socket yet for flow " << i);
    NS_ABORT_MSG_IF(!hook(i, s), "cannot connect the traces of flow " << i);
}

void
InstallFlows(Dumbbell& net,
             const DumbbellOptions& o,
             const Draws& d,
             const SocketFactoryOf& factory,
             const FlowHook& hook)
{
    const uint16_t port = 5000;
    for (uint32_t i = 0; i < o.pairs; i++)
    {
        BulkSendHelper source(factory(net.senders.Get(i)), InetSocketAddress(net.dst[i], port));
        source.SetAttribute("MaxBytes", UintegerValue(0));
        source.SetAttribute("SendSize", UintegerValue(o.mss * 100));
        ApplicationContainer s = source.Install(net.senders.Get(i));
        s.Start(Seconds(d.starts[i]));
        s.Stop(Seconds(o.duration + 1));
        net.apps.push_back(DynamicCast<BulkSendApplication>(s.Get(0)));
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer k = sink.Install(net.receivers.Get(i));
        k.Start(Seconds(0));
        net.sinks.push_back(DynamicCast<PacketSink>(k.Get(0)));
        Simulator::Schedule(Seconds(d.starts[i]) + NanoSeconds(1),
                            &HookFlow,
                            hook,
                            i,
                            net.apps.back());
    }
}

TypeId
JitterChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CcsimJitterChannel")
                            .SetParent<PointToPointChannel>()
                            .AddConstructor<JitterChannel>();
    return tid;
}

bool
JitterChannel::TransmitStart(Ptr<const Packet> p, Ptr<PointToPointNetDevice> src, Time txTime)
{
    const uint32_t wire = src == GetSource(0) ? 0 : 1;
    Ptr<PointToPointNetDevice> dst = GetDestination(wire);
    Time at = Simulator::Now() + txTime + GetDelay() + Seconds(s_rng->GetValue(0, s_jitter));
    at = std::max(at, m_last[wire]);
    m_last[wire] = at;
    Simulator::ScheduleWithContext(dst->GetNode()->GetId(),
                                   at - Simulator::Now(),
                                   &PointToPointNetDevice::Receive,
                                   dst,
                                   p->Copy());
    return true;
}

double JitterChannel::s_jitter = 0;
Ptr<UniformRandomVariable> JitterChannel::s_rng;
