/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfair-ns3cell: one 802.11n/ac cell simulated by ns-3 in real time,
 * carrying the frames of real Linux interfaces (taps).
 *
 * The cell: an AP node and N station nodes on one YansWifiChannel; each
 * station's link has its own path loss (a MatrixPropagationLossModel), set
 * so that IdealWifiManager picks the MCS asked for (the SNR half-way
 * between that MCS's threshold and the next one's, the thresholds being
 * the PHY's own, WifiPhy::CalculateSnr at the manager's BER); the
 * stations hear each other well (no hidden terminals). A-MPDU on or off.
 *
 * The Linux side: taps that the caller created (persistent, in this
 * program's namespace) and moves into place once this program has opened
 * them (an open tap survives the move):
 *   --sta-tap NAME  once per station: the station's radio, in its own
 *                   namespace; its MAC must become the simulated station's
 *                   (printed in the ready line): a station sends as itself;
 *   --port-tap NAME once per station: the AP's port towards that station,
 *                   in the AP's namespace (a bridge of ports, as the
 *                   testbed's, where wlanfair-apd finds its stations).
 * Each tap is an FdNetDevice on its node; a small L2 forwarder joins it to
 * the node's WifiNetDevice (TapBridge cannot serve a station: no
 * SendFrom). A frame from port i goes to station i only: a broadcast is
 * sent to that station alone (multicast to unicast, as hostapd can), so
 * that the bridge's flood crosses the air once per station as unicast.
 *
 * Real time: RealtimeSimulatorImpl, best effort. Every 10 ms of simulated
 * time the lag behind the wall clock is sampled; the done line gives its
 * p50/p99/max and how many samples were over --lag-limit-ms, so that the
 * caller can reject a run the simulator could not keep up with.
 *
 * stdout: one JSON object per line: {"event":"ready",...} once the taps
 * are open and the cell is built, {"event":"done",...} at the end.
 * SIGTERM or SIGINT, or --duration, ends the run. */
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/fd-net-device-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/propagation-module.h"
#include "ns3/wifi-module.h"

using namespace ns3;

namespace {

std::atomic<bool> g_stop{false};

void
on_signal (int)
{
  g_stop = true;
}

struct Options
{
  std::vector<std::string> sta_taps, port_taps;
  std::vector<int> mcs;
  std::string standard = "n";
  int width = 20;
  bool ampdu = false;
  uint32_t seed = 1;
  double duration_s = 0;       /* 0: until a signal */
  double lag_limit_ms = 50;
  /* --pure S: no taps, no real time: ns-3's own TCP (cubic) in the same
   * cell for S simulated seconds, the model's figures to compare with */
  double pure_s = 0;
  size_t pure_stations = 0;
  std::string pure_dir = "up";
};

[[noreturn]] void
usage_error (const std::string &why)
{
  fprintf (stderr, "wlanfair-ns3cell: %s\n"
           "usage: wlanfair-ns3cell --sta-tap NAME --port-tap NAME [...] --mcs M[,M...]\n"
           "       [--standard n|ac] [--width 20|40|80] [--ampdu on|off] [--seed N]\n"
           "       [--duration S] [--lag-limit-ms MS]\n", why.c_str ());
  exit (2);
}

long
parse_long (const std::string &what, const std::string &text, long lo, long hi)
{
  char *end = nullptr;
  errno = 0;
  long v = strtol (text.c_str (), &end, 10);
  if (errno || end == text.c_str () || *end || v < lo || v > hi)
    usage_error (what + " must be an integer in " + std::to_string (lo) + ".." +
                 std::to_string (hi) + ", not '" + text + "'");
  return v;
}

double
parse_double (const std::string &what, const std::string &text, double lo, double hi)
{
  char *end = nullptr;
  errno = 0;
  double v = strtod (text.c_str (), &end);
  if (errno || end == text.c_str () || *end || !(v >= lo && v <= hi))
    usage_error (what + " must be a number in " + std::to_string (lo) + ".." +
                 std::to_string (hi) + ", not '" + text + "'");
  return v;
}

Options
parse_args (int argc, char **argv)
{
  Options o;
  for (int i = 1; i < argc; i++)
    {
      std::string a = argv[i];
      if (a == "--help" || a == "-h")
        {
          printf ("wlanfair-ns3cell: an 802.11 cell simulated by ns-3 in real time between taps\n"
                  "  --pure S           no taps: ns-3's own TCP in the cell for S simulated s\n"
                  "  --stations N       (--pure) how many stations\n"
                  "  --dir up|down|mix  (--pure) the bulk flows' direction (mix: odd up)\n"
                  "  --sta-tap NAME     a station's radio (once per station)\n"
                  "  --port-tap NAME    the AP's port towards that station (once per station)\n"
                  "  --mcs M[,M...]     each station's MCS (0-7 for n, 0-9 for ac; one value: all)\n"
                  "  --standard n|ac    802.11n (5 GHz, the default) or 802.11ac\n"
                  "  --width MHZ        20 (default), 40, or 80 (ac only)\n"
                  "  --ampdu on|off     A-MPDU aggregation (default off)\n"
                  "  --seed N           the simulator's run number (default 1)\n"
                  "  --duration S       stop after S s (default: at SIGTERM)\n"
                  "  --lag-limit-ms MS  lag samples above this count as fallen behind (50)\n");
          exit (0);
        }
      if (i + 1 >= argc)
        usage_error (a + " needs a value");
      std::string v = argv[++i];
      if (a == "--sta-tap")
        o.sta_taps.push_back (v);
      else if (a == "--port-tap")
        o.port_taps.push_back (v);
      else if (a == "--mcs")
        {
          size_t pos = 0;
          while (pos <= v.size ())
            {
              size_t comma = v.find (',', pos);
              std::string one = v.substr (pos, comma == std::string::npos ? std::string::npos
                                                                          : comma - pos);
              o.mcs.push_back ((int) parse_long ("--mcs", one, 0, 9));
              if (comma == std::string::npos)
                break;
              pos = comma + 1;
            }
        }
      else if (a == "--standard")
        {
          if (v != "n" && v != "ac")
            usage_error ("--standard must be n or ac, not '" + v + "'");
          o.standard = v;
        }
      else if (a == "--width")
        o.width = (int) parse_long ("--width", v, 20, 80);
      else if (a == "--ampdu")
        {
          if (v != "on" && v != "off")
            usage_error ("--ampdu must be on or off, not '" + v + "'");
          o.ampdu = v == "on";
        }
      else if (a == "--seed")
        o.seed = (uint32_t) parse_long ("--seed", v, 1, 1000000);
      else if (a == "--duration")
        o.duration_s = parse_double ("--duration", v, 0, 86400);
      else if (a == "--lag-limit-ms")
        o.lag_limit_ms = parse_double ("--lag-limit-ms", v, 1, 10000);
      else if (a == "--pure")
        o.pure_s = parse_double ("--pure", v, 1, 3600);
      else if (a == "--stations")
        o.pure_stations = (size_t) parse_long ("--stations", v, 1, 16);
      else if (a == "--dir")
        {
          if (v != "up" && v != "down" && v != "mix")
            usage_error ("--dir must be up, down or mix, not '" + v + "'");
          o.pure_dir = v;
        }
      else
        usage_error ("unknown option " + a);
    }
  size_t n = o.sta_taps.size ();
  if (o.pure_s > 0)
    {
      if (n || !o.port_taps.empty ())
        usage_error ("--pure takes no taps (--stations N instead)");
      if (!o.pure_stations)
        usage_error ("--pure needs --stations N");
      n = o.pure_stations;
    }
  else if (o.pure_stations)
    usage_error ("--stations is --pure's; with taps, one --sta-tap per station");
  else if (n == 0 || n > 16)
    usage_error ("1 to 16 stations (--sta-tap) are needed");
  else if (o.port_taps.size () != n)
    usage_error ("one --port-tap per --sta-tap");
  if (o.mcs.size () == 1)
    o.mcs.assign (n, o.mcs[0]);
  if (o.mcs.size () != n)
    usage_error ("--mcs: one value, or one per station");
  int max_mcs = o.standard == "ac" ? 9 : 7;
  for (int m : o.mcs)
    if (m > max_mcs)
      usage_error ("--mcs " + std::to_string (m) + " does not exist in 802.11" + o.standard);
  if (o.width != 20 && o.width != 40 && !(o.width == 80 && o.standard == "ac"))
    usage_error ("--width must be 20 or 40 (or 80 with --standard ac)");
  return o;
}

/* A persistent tap made by the caller, opened by name. */
int
open_tap (const std::string &name)
{
  if (name.empty () || name.size () >= IFNAMSIZ)
    usage_error ("tap name '" + name + "' is not an interface name");
  int fd = open ("/dev/net/tun", O_RDWR | O_CLOEXEC);
  if (fd < 0)
    {
      fprintf (stderr, "wlanfair-ns3cell: /dev/net/tun: %s\n", strerror (errno));
      exit (1);
    }
  struct ifreq ifr;
  memset (&ifr, 0, sizeof ifr);
  ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
  memcpy (ifr.ifr_name, name.c_str (), name.size ());
  if (ioctl (fd, TUNSETIFF, &ifr) < 0)
    {
      fprintf (stderr, "wlanfair-ns3cell: tap %s: %s (create it first: ip tuntap add mode tap name %s)\n",
               name.c_str (), strerror (errno), name.c_str ());
      exit (1);
    }
  return fd;
}

std::string
mac_text (const Address &a)
{
  std::ostringstream os;
  os << Mac48Address::ConvertFrom (a);
  return os.str ();
}

/* ---- the L2 forwarders ---- */

struct Cell
{
  Ptr<WifiNetDevice> ap_wifi;
  std::vector<Ptr<FdNetDevice>> ports;     /* the AP's, per station */
  std::vector<Ptr<WifiNetDevice>> sta_wifi;
  std::vector<Ptr<FdNetDevice>> sta_tap;
  std::vector<Mac48Address> sta_mac;
  uint64_t frames_up = 0, frames_down = 0, dropped = 0;
};

Cell g_cell;

/* From the AP's port i (the bridge): to station i over the air. */
bool
port_rx (size_t i, Ptr<NetDevice>, Ptr<const Packet> p, uint16_t proto,
         const Address &from, const Address &to, NetDevice::PacketType)
{
  Mac48Address dst = Mac48Address::ConvertFrom (to);
  if (dst.IsGroup ())
    dst = g_cell.sta_mac[i];
  else if (dst != g_cell.sta_mac[i])
    {
      g_cell.dropped++;  /* not for this port's station */
      return true;
    }
  g_cell.frames_down++;
  g_cell.ap_wifi->SendFrom (p->Copy (), from, dst, proto);
  return true;
}

/* Received by the AP from a station: out of that station's port. */
bool
ap_air_rx (Ptr<NetDevice>, Ptr<const Packet> p, uint16_t proto,
           const Address &from, const Address &to, NetDevice::PacketType)
{
  Mac48Address src = Mac48Address::ConvertFrom (from);
  for (size_t i = 0; i < g_cell.sta_mac.size (); i++)
    if (g_cell.sta_mac[i] == src)
      {
        g_cell.frames_up++;
        g_cell.ports[i]->SendFrom (p->Copy (), from, to, proto);
        return true;
      }
  g_cell.dropped++;
  return true;
}

/* From station i's kernel: to the AP over the air. */
bool
sta_tap_rx (size_t i, Ptr<NetDevice>, Ptr<const Packet> p, uint16_t proto,
            const Address &, const Address &to, NetDevice::PacketType)
{
  g_cell.sta_wifi[i]->Send (p->Copy (), to, proto);
  return true;
}

/* Received by station i over the air: to its kernel. */
bool
sta_air_rx (size_t i, Ptr<NetDevice>, Ptr<const Packet> p, uint16_t proto,
            const Address &from, const Address &to, NetDevice::PacketType)
{
  g_cell.sta_tap[i]->SendFrom (p->Copy (), from, to, proto);
  return true;
}

/* ---- real time ---- */

struct Lag
{
  std::chrono::steady_clock::time_point wall0;
  std::vector<double> ms;
  double limit_ms = 50;
  uint64_t over = 0;
};

Lag g_lag;

void
sample_lag ()
{
  double wall = std::chrono::duration<double> (std::chrono::steady_clock::now () - g_lag.wall0).count ();
  double lag = (wall - Simulator::Now ().GetSeconds ()) * 1e3;
  g_lag.ms.push_back (lag);
  if (lag > g_lag.limit_ms)
    g_lag.over++;
  if (g_stop)
    {
      Simulator::Stop ();
      return;
    }
  Simulator::Schedule (MilliSeconds (10), &sample_lag);
}

double
percentile (std::vector<double> v, double q)
{
  if (v.empty ())
    return 0;
  std::sort (v.begin (), v.end ());
  size_t k = (size_t) (q * (v.size () - 1));
  return v[k];
}

/* The SNR (dB) at which IdealWifiManager picks `mcs` and not the next:
 * half-way between the two thresholds the PHY itself computes. */
double
snr_for_mcs (Ptr<WifiPhy> phy, const Options &o, int mcs, double ber)
{
  auto threshold = [&] (int m) {
    WifiMode mode = o.standard == "ac" ? VhtPhy::GetVhtMcs (m) : HtPhy::GetHtMcs (m);
    WifiTxVector tv;
    tv.SetMode (mode);
    tv.SetPreambleType (o.standard == "ac" ? WIFI_PREAMBLE_VHT_SU : WIFI_PREAMBLE_HT_MF);
    tv.SetChannelWidth (o.width);
    tv.SetNss (1);
    tv.SetGuardInterval (800);
    return 10 * std::log10 (phy->CalculateSnr (tv, ber));
  };
  int top = o.standard == "ac" ? 9 : 7;
  double lo = threshold (mcs);
  double hi = mcs < top ? threshold (mcs + 1) : lo + 6;
  return (lo + hi) / 2;
}


const double NOISE_FIGURE_DB = 7;  /* ns-3's default */

/* The cell: an AP and n stations, each link at its MCS's SNR. */
struct Built
{
  NodeContainer ap, sta;
  NetDeviceContainer ap_dev, sta_dev;
  std::vector<double> snr_db;
};

Built
build_cell (const Options &o, size_t n)
{
  Built b;
  b.ap.Create (1);
  b.sta.Create (n);

  MobilityHelper mobility;
  mobility.SetMobilityModel ("ns3::ConstantPositionMobilityModel");
  mobility.Install (b.ap);
  mobility.Install (b.sta);

  /* Path loss by pair: set below, once the PHY can say what each MCS
   * needs; unset pairs (station to station) hear each other well. */
  Ptr<MatrixPropagationLossModel> loss = CreateObject<MatrixPropagationLossModel> ();
  loss->SetDefaultLoss (50);
  Ptr<YansWifiChannel> channel = CreateObject<YansWifiChannel> ();
  channel->SetPropagationLossModel (loss);
  channel->SetPropagationDelayModel (CreateObject<ConstantSpeedPropagationDelayModel> ());

  YansWifiPhyHelper phy;
  phy.SetChannel (channel);
  /* The default preamble detection (4 dB over -82 dBm) would drop the
   * frames of a station placed at MCS 0's SNR: off. */
  phy.DisablePreambleDetectionModel ();
  /* Set, not read back (the attribute cannot be read): the noise floor
   * the losses below are computed from. */
  phy.Set ("RxNoiseFigure", DoubleValue (NOISE_FIGURE_DB));
  int ch = o.width == 20 ? 36 : o.width == 40 ? 38 : 42;
  phy.Set ("ChannelSettings", StringValue ("{" + std::to_string (ch) + ", " +
                                           std::to_string (o.width) + ", BAND_5GHZ, 0}"));

  WifiHelper wifi;
  wifi.SetStandard (o.standard == "ac" ? WIFI_STANDARD_80211ac : WIFI_STANDARD_80211n);
  wifi.SetRemoteStationManager ("ns3::IdealWifiManager");

  WifiMacHelper mac;
  Ssid ssid ("wlanfair-ns3");
  mac.SetType ("ns3::StaWifiMac", "Ssid", SsidValue (ssid), "ActiveProbing", BooleanValue (false));
  b.sta_dev = wifi.Install (phy, mac, b.sta);
  mac.SetType ("ns3::ApWifiMac", "Ssid", SsidValue (ssid));
  b.ap_dev = wifi.Install (phy, mac, b.ap);
  wifi.AssignStreams (b.sta_dev, 100);
  wifi.AssignStreams (b.ap_dev, 200);

  if (!o.ampdu)
    Config::Set ("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Mac/BE_MaxAmpduSize",
                 UintegerValue (0));

  Ptr<WifiPhy> ap_phy = DynamicCast<WifiNetDevice> (b.ap_dev.Get (0))->GetPhy ();
  double ber = 1e-6;  /* IdealWifiManager's BerThreshold default */
  double tx_dbm = ap_phy->GetTxPowerStart ();
  /* Thermal noise over the channel plus the receiver's noise figure. */
  double noise_dbm = -174 + 10 * std::log10 (o.width * 1e6) + NOISE_FIGURE_DB;
  b.snr_db.resize (n);
  for (size_t i = 0; i < n; i++)
    {
      b.snr_db[i] = snr_for_mcs (ap_phy, o, o.mcs[i], ber);
      loss->SetLoss (b.ap.Get (0)->GetObject<MobilityModel> (),
                     b.sta.Get (i)->GetObject<MobilityModel> (),
                     tx_dbm - noise_dbm - b.snr_db[i], true);
    }
  return b;
}

void
print_stations (const Options &o, const Built &b, const std::vector<double> *mbps)
{
  for (size_t i = 0; i < b.snr_db.size (); i++)
    {
      WifiMode mode = o.standard == "ac" ? VhtPhy::GetVhtMcs (o.mcs[i]) : HtPhy::GetHtMcs (o.mcs[i]);
      printf ("%s{\"mac\":\"%s\",\"mcs\":%d,\"snr_db\":%.2f,\"phy_rate_bps\":%llu", i ? "," : "",
              mac_text (b.sta_dev.Get (i)->GetAddress ()).c_str (), o.mcs[i], b.snr_db[i],
              (unsigned long long) mode.GetDataRate (o.width, 800, 1));
      if (mbps)
        printf (",\"goodput_bps\":%.0f", (*mbps)[i] * 1e6);
      printf ("}");
    }
}

/* The model's own figures: ns-3's TCP (cubic, 1448-byte segments, large
 * buffers) in the same cell, no taps, simulated time. Goodput over the
 * run after a 2-s warm-up, per station. */
int
run_pure (const Options &o, size_t n)
{
  Config::SetDefault ("ns3::TcpL4Protocol::SocketType", StringValue ("ns3::TcpCubic"));
  Config::SetDefault ("ns3::TcpSocket::SegmentSize", UintegerValue (1448));
  Config::SetDefault ("ns3::TcpSocket::SndBufSize", UintegerValue (4 << 20));
  Config::SetDefault ("ns3::TcpSocket::RcvBufSize", UintegerValue (4 << 20));
  RngSeedManager::SetSeed (1);
  RngSeedManager::SetRun (o.seed);
  Built b = build_cell (o, n);

  InternetStackHelper stack;
  stack.Install (b.ap);
  stack.Install (b.sta);
  Ipv4AddressHelper addr ("10.3.0.0", "255.255.255.0");
  Ipv4InterfaceContainer ap_if = addr.Assign (b.ap_dev);
  Ipv4InterfaceContainer sta_if = addr.Assign (b.sta_dev);

  const double warm = 2.0;
  std::vector<Ptr<PacketSink>> sinks;
  for (size_t i = 0; i < n; i++)
    {
      bool up = o.pure_dir == "up" || (o.pure_dir == "mix" && i % 2 == 0);
      uint16_t port = (uint16_t) (9000 + i);
      Ptr<Node> rx = up ? b.ap.Get (0) : b.sta.Get (i);
      Ptr<Node> tx = up ? b.sta.Get (i) : b.ap.Get (0);
      Ipv4Address rx_addr = up ? ap_if.GetAddress (0) : sta_if.GetAddress (i);
      PacketSinkHelper sink ("ns3::TcpSocketFactory", InetSocketAddress (Ipv4Address::GetAny (), port));
      ApplicationContainer sa = sink.Install (rx);
      sa.Start (Seconds (0.0));
      sinks.push_back (DynamicCast<PacketSink> (sa.Get (0)));
      BulkSendHelper bulk ("ns3::TcpSocketFactory", InetSocketAddress (rx_addr, port));
      bulk.SetAttribute ("MaxBytes", UintegerValue (0));
      ApplicationContainer ba = bulk.Install (tx);
      ba.Start (Seconds (0.5 + 0.01 * i));
    }
  std::vector<uint64_t> at_warm (n);
  Simulator::Schedule (Seconds (warm), [&] () {
    for (size_t i = 0; i < n; i++)
      at_warm[i] = sinks[i]->GetTotalRx ();
  });
  Simulator::Stop (Seconds (warm + o.pure_s));
  auto t0 = std::chrono::steady_clock::now ();
  Simulator::Run ();
  double wall = std::chrono::duration<double> (std::chrono::steady_clock::now () - t0).count ();
  std::vector<double> mbps (n);
  for (size_t i = 0; i < n; i++)
    mbps[i] = (sinks[i]->GetTotalRx () - at_warm[i]) * 8.0 / o.pure_s / 1e6;
  printf ("{\"event\":\"model\",\"standard\":\"802.11%s\",\"width_mhz\":%d,\"ampdu\":%s,"
          "\"seed\":%u,\"dir\":\"%s\",\"seconds\":%.1f,\"wall_s\":%.1f,\"stations\":[",
          o.standard.c_str (), o.width, o.ampdu ? "true" : "false", o.seed, o.pure_dir.c_str (),
          o.pure_s, wall);
  print_stations (o, b, &mbps);
  printf ("]}\n");
  Simulator::Destroy ();
  return 0;
}

}  // namespace

int
main (int argc, char **argv)
{
  Options o = parse_args (argc, argv);
  if (o.pure_s > 0)
    return run_pure (o, o.pure_stations);
  size_t n = o.sta_taps.size ();

  /* The taps first: a name that does not exist fails before any set-up. */
  std::vector<int> sta_fd, port_fd;
  for (size_t i = 0; i < n; i++)
    {
      sta_fd.push_back (open_tap (o.sta_taps[i]));
      port_fd.push_back (open_tap (o.port_taps[i]));
    }

  GlobalValue::Bind ("SimulatorImplementationType", StringValue ("ns3::RealtimeSimulatorImpl"));
  Config::SetDefault ("ns3::RealtimeSimulatorImpl::SynchronizationMode", StringValue ("BestEffort"));
  RngSeedManager::SetSeed (1);
  RngSeedManager::SetRun (o.seed);
  Built b = build_cell (o, n);
  g_cell.ap_wifi = DynamicCast<WifiNetDevice> (b.ap_dev.Get (0));

  /* The taps, and the forwarders between them and the radios. */
  FdNetDeviceHelper fdh;
  for (size_t i = 0; i < n; i++)
    {
      Ptr<FdNetDevice> port = DynamicCast<FdNetDevice> (fdh.Install (b.ap.Get (0)).Get (0));
      port->SetFileDescriptor (port_fd[i]);
      g_cell.ports.push_back (port);
      Ptr<FdNetDevice> tap = DynamicCast<FdNetDevice> (fdh.Install (b.sta.Get (i)).Get (0));
      tap->SetFileDescriptor (sta_fd[i]);
      g_cell.sta_tap.push_back (tap);
      Ptr<WifiNetDevice> w = DynamicCast<WifiNetDevice> (b.sta_dev.Get (i));
      g_cell.sta_wifi.push_back (w);
      g_cell.sta_mac.push_back (Mac48Address::ConvertFrom (w->GetAddress ()));
      tap->SetAddress (w->GetAddress ());

      port->SetPromiscReceiveCallback (MakeBoundCallback (&port_rx, i));
      tap->SetPromiscReceiveCallback (MakeBoundCallback (&sta_tap_rx, i));
      w->SetPromiscReceiveCallback (MakeBoundCallback (&sta_air_rx, i));
    }
  g_cell.ap_wifi->SetPromiscReceiveCallback (MakeCallback (&ap_air_rx));

  std::signal (SIGTERM, on_signal);
  std::signal (SIGINT, on_signal);

  printf ("{\"event\":\"ready\",\"standard\":\"802.11%s\",\"width_mhz\":%d,\"ampdu\":%s,"
          "\"seed\":%u,\"ap_mac\":\"%s\",\"stations\":[",
          o.standard.c_str (), o.width, o.ampdu ? "true" : "false", o.seed,
          mac_text (g_cell.ap_wifi->GetAddress ()).c_str ());
  print_stations (o, b, nullptr);
  printf ("]}\n");
  fflush (stdout);

  g_lag.limit_ms = o.lag_limit_ms;
  g_lag.wall0 = std::chrono::steady_clock::now ();
  Simulator::Schedule (MilliSeconds (10), &sample_lag);
  if (o.duration_s > 0)
    Simulator::Stop (Seconds (o.duration_s));
  Simulator::Run ();
  double sim_s = Simulator::Now ().GetSeconds ();
  Simulator::Destroy ();

  printf ("{\"event\":\"done\",\"sim_s\":%.3f,\"lag_samples\":%zu,\"lag_p50_ms\":%.2f,"
          "\"lag_p99_ms\":%.2f,\"lag_max_ms\":%.2f,\"lag_over_limit\":%llu,\"lag_limit_ms\":%.1f,"
          "\"frames_up\":%llu,\"frames_down\":%llu,\"frames_dropped\":%llu}\n",
          sim_s, g_lag.ms.size (), percentile (g_lag.ms, 0.5), percentile (g_lag.ms, 0.99),
          g_lag.ms.empty () ? 0.0 : *std::max_element (g_lag.ms.begin (), g_lag.ms.end ()),
          (unsigned long long) g_lag.over, g_lag.limit_ms,
          (unsigned long long) g_cell.frames_up, (unsigned long long) g_cell.frames_down,
          (unsigned long long) g_cell.dropped);
  fflush (stdout);
  return 0;
}
