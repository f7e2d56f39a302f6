/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Loading, attaching and recording the ack-priority program. */
#include "config.h"

#include "wlanfair-ack-priority.h"

#include <bpf/libbpf.h>
#include <errno.h>

#include "wlanfair-ack-priority.skel.h"
#include "wlanfair-error.h"
#include "wlanfair-tc-bpf-owned.h"

struct _WfAckPrio {
  struct wlanfair_ack_priority *skel;
  WfTcBpfOwned owned;
};

/* prog_name: the kernel's name (wlanfair-ack-priority.bpf.c), kept. */
static const WfTcBpfSpec tc_spec = {
  .what = WF_ACK_PRIO_NAME, .prog_name = "wf_ackprio",
  .handle = WF_ACK_PRIO_TC_HANDLE, .prio = WF_ACK_PRIO_TC_PRIO,
  .points = WF_TC_BPF_EGRESS,
};

static void
ack_prio_free (WfAckPrio *ap)
{
  if (!ap)
    return;
  if (ap->skel)
    wlanfair_ack_priority__destroy (ap->skel);
  wf_tc_bpf_owned_clear (&ap->owned);
  g_free (ap);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfAckPrio, ack_prio_free)

static struct wlanfair_ack_priority *
load (GError **error)
{
  struct wlanfair_ack_priority *skel;
  int err;

  wf_tc_bpf_route_libbpf_log ();
  skel = wlanfair_ack_priority__open ();
  if (!skel)
    {
      wf_tc_bpf_set_error (error, WF_ACK_PRIO_NAME, errno, "opening the BPF object");
      return NULL;
    }
  if ((err = wlanfair_ack_priority__load (skel)) < 0)
    {
      wf_tc_bpf_set_error (error, WF_ACK_PRIO_NAME, -err, "loading the BPF program");
      wlanfair_ack_priority__destroy (skel);
      return NULL;
    }
  return skel;
}

gboolean
wf_ack_prio_probe (GError **error)
{
  struct wlanfair_ack_priority *skel = load (error);

  if (!skel)
    return FALSE;
  wlanfair_ack_priority__destroy (skel);
  return TRUE;
}

WfAckPrio *
wf_ack_prio_start (const char *ifname, WfApdState *state, GError **error)
{
  g_autoptr(WfAckPrio) ap = g_new0 (WfAckPrio, 1);

  if (!(ap->skel = load (error)) ||
      !wf_tc_bpf_owned_attach (&ap->owned, &tc_spec, bpf_program__fd (ap->skel->progs.wf_ackprio),
                               ifname, state, error))
    return NULL;
  g_message ("%s on %s: pure ACKs and handshakes of best effort go out as CS6 (voice)",
             WF_ACK_PRIO_NAME, ifname);
  return g_steal_pointer (&ap);
}

gboolean
wf_ack_prio_restore (const char *ifname, WfApdState *state, GError **error)
{
  return wf_tc_bpf_owned_restore (&tc_spec, ifname, state, error);
}

gboolean
wf_ack_prio_stop (WfAckPrio *ap, GError **error)
{
  g_autoptr(WfAckPrio) owned = ap;
  char ifname[IF_NAMESIZE];

  g_strlcpy (ifname, ap->owned.link.ifname[0] ? ap->owned.link.ifname : "?", sizeof ifname);
  if (!wf_tc_bpf_owned_detach (&ap->owned, error))
    return FALSE;
  g_message ("%s on %s: removed", WF_ACK_PRIO_NAME, ifname);
  return TRUE;
}

gboolean
wf_ack_prio_counters (WfAckPrio *ap, guint64 out[WF_ACK_PRIO_N], GError **error)
{
  int err = wf_tc_bpf_percpu_sums (bpf_map__fd (ap->skel->maps.counters), WF_ACK_PRIO_N, out);

  if (err)
    {
      wf_tc_bpf_set_error (error, WF_ACK_PRIO_NAME, err, "reading the counters");
      return FALSE;
    }
  return TRUE;
}

gboolean
wf_ack_prio_attached (const char *ifname)
{
  return wf_tc_bpf_attached (&tc_spec, ifname);
}

const char *
wf_ack_prio_ifname (WfAckPrio *ap)
{
  return ap->owned.link.ifname;
}
