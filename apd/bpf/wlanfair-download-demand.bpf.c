// SPDX-License-Identifier: GPL-2.0-or-later
/* download-demand: at tc egress of the AP interface, before any queue of
 * the AP, the frames handed to each station (by destination MAC; group
 * addresses are left out). wlanfair-apd sets them beside what the station
 * got (nl80211's or the bridge port's tx_packets): what queued or dropped
 * in between is the one sign of a download that wants more than it gets,
 * which the station, its receiver, cannot give. Nothing is changed: every
 * path returns TC_ACT_UNSPEC, so later filters still run. */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>

#include <bpf/bpf_helpers.h>

#include "wlanfair-download-demand-shared.h"

char _license[] SEC ("license") = "GPL";

/* The map's and the program's names (offered, wf_offered) are the
 * kernel's: bpftool shows them and a restore after a crash finds the
 * filter by the program's name, so they stay as older releases had them. */

struct {
  __uint (type, BPF_MAP_TYPE_LRU_PERCPU_HASH);
  __uint (max_entries, WF_DOWNLOAD_DEMAND_MAX_STATIONS);
  __type (key, __u64);
  __type (value, struct wf_download_demand_count);
} offered SEC (".maps");

/* The address is read into a per-CPU map value, not onto the stack, and
 * the key is an 8-byte local: Linux 6.1's verifier without CAP_PERFMON
 * refuses narrower stores into stack slots clang reused (see
 * wlanfair-rwnd.bpf.c). */
struct scratch {
  __u8 mac[8];
};

struct {
  __uint (type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint (max_entries, 1);
  __type (key, __u32);
  __type (value, struct scratch);
} scratch SEC (".maps");

SEC ("tc")
int
wf_offered (struct __sk_buff *skb)
{
  __u64 zero = 0;   /* an 8-byte local (above) */
  struct scratch *sc = bpf_map_lookup_elem (&scratch, &zero);
  struct wf_download_demand_count *v;
  __u8 *m;
  __u64 key;
  __u32 frames;

  if (!sc || bpf_skb_load_bytes (skb, 0, sc->mac, 6) < 0)
    return TC_ACT_UNSPEC;
  m = sc->mac;
  if (m[0] & 1)
    return TC_ACT_UNSPEC;
  key = (__u64) m[0] << 40 | (__u64) m[1] << 32 | (__u64) m[2] << 24 |
        (__u64) m[3] << 16 | (__u64) m[4] << 8 | m[5];
  /* A GSO packet (the bridge's, a TSO sender's) leaves the port as
   * gso_segs frames, and the port's tx_packets counts frames. */
  frames = skb->gso_segs ? skb->gso_segs : 1;
  v = bpf_map_lookup_elem (&offered, &key);
  if (v)
    {
      v->packets += frames;
      v->bytes += skb->len;
    }
  else
    {
      struct wf_download_demand_count one = { .packets = frames, .bytes = skb->len };

      /* Another CPU may insert it first: that frame goes uncounted. */
      bpf_map_update_elem (&offered, &key, &one, BPF_NOEXIST);
    }
  return TC_ACT_UNSPEC;
}
