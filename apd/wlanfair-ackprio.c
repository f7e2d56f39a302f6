/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Loading, attaching and recording the ack-priority program. */
#include "config.h"

#include "wlanfair-ackprio.h"

#include <bpf/libbpf.h>
#include <errno.h>

#include "wlanfair-ackprio.skel.h"
#include "wlanfair-actuator.h"   /* the state's group names */
#include "wlanfair-error.h"
#include "wlanfair-tc-bpf.h"

struct _WfAckPrio {
  struct wlanfair_ackprio *skel;
  WfTcBpfLink  link;
  WfApdState  *state;   /* not owned */
  char        *group;
};

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
    wlanfair_ackprio__destroy (ap->skel);
  g_free (ap->group);
  g_free (ap);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WfAckPrio, ack_prio_free)

static struct wlanfair_ackprio *
load (GError **error)
{
  struct wlanfair_ackprio *skel;
  int err;

  wf_tc_bpf_route_libbpf_log ();
  skel = wlanfair_ackprio__open ();
  if (!skel)
    {
      wf_tc_bpf_set_error (error, WF_ACK_PRIO_NAME, errno, "opening the BPF object");
      return NULL;
    }
  if ((err = wlanfair_ackprio__load (skel)) < 0)
    {
      wf_tc_bpf_set_error (error, WF_ACK_PRIO_NAME, -err, "loading the BPF program");
      wlanfair_ackprio__destroy (skel);
      return NULL;
    }
  return skel;
}

gboolean
wf_ack_prio_probe (GError **error)
{
  struct wlanfair_ackprio *skel = load (error);

  if (!skel)
    return FALSE;
  wlanfair_ackprio__destroy (skel);
  return TRUE;
}

static gboolean
record (WfAckPrio *ap, const char *key, const char *value, GError **error)
{
  wf_apd_state_set (ap->state, ap->group, key, value);
  return wf_apd_state_save (ap->state, error);
}

static gboolean
forget (WfApdState *state, const char *group, GError **error)
{
  wf_apd_state_remove_group (state, group);
  return wf_apd_state_save (state, error);
}

WfAckPrio *
wf_ack_prio_start (const char *ifname, WfApdState *state, GError **error)
{
  g_autoptr(WfAckPrio) ap = g_new0 (WfAckPrio, 1);
  g_autoptr(GError) undo = NULL;
  gboolean created = FALSE;

  ap->state = state;
  ap->group = wf_actuator_group (WF_ACK_PRIO_NAME, ifname);
  if (!(ap->skel = load (error)))
    return NULL;
  /* Recorded first: a crash from here on leaves a filter that restore
   * removes (and, before "clsact" is written, an empty clsact qdisc). */
  if (!record (ap, "filters", "egress", error))
    return NULL;
  if (!wf_tc_bpf_attach (&ap->link, &tc_spec, bpf_program__fd (ap->skel->progs.wf_ackprio),
                         ifname, &created, error) ||
      !record (ap, "clsact", created ? "created" : "kept", error))
    {
      if (!wf_tc_bpf_detach (&ap->link, &undo) || !forget (state, ap->group, &undo))
        g_warning ("%s: undoing a failed start: %s (left in %s for --restore)", ap->group,
                   undo->message, wf_apd_state_path (state));
      return NULL;
    }
  g_message ("%s on %s: pure ACKs and handshakes of best effort go out as CS6 (voice)",
             WF_ACK_PRIO_NAME, ifname);
  return g_steal_pointer (&ap);
}

gboolean
wf_ack_prio_restore (const char *ifname, WfApdState *state, GError **error)
{
  g_autofree char *group = wf_actuator_group (WF_ACK_PRIO_NAME, ifname);
  g_autofree char *filters = wf_apd_state_get (state, group, "filters");
  g_autofree char *clsact = wf_apd_state_get (state, group, "clsact");

  if (!filters)
    return TRUE;
  return wf_tc_bpf_detach_ifname (&tc_spec, ifname, clsact && g_str_equal (clsact, "created"),
                                  error);
}

gboolean
wf_ack_prio_stop (WfAckPrio *ap, GError **error)
{
  g_autoptr(WfAckPrio) owned = ap;
  g_autoptr(GError) local = NULL;
  const char *ifname = ap->link.ifname[0] ? ap->link.ifname : NULL;

  /* Failing that, the path after a crash: by the record. */
  if (!wf_tc_bpf_detach (&ap->link, &local))
    {
      g_info ("%s (restoring from the record next)", local->message);
      if (ifname && !wf_ack_prio_restore (ifname, ap->state, error))
        return FALSE;
    }
  if (!forget (ap->state, ap->group, error))
    return FALSE;
  g_message ("%s on %s: removed", WF_ACK_PRIO_NAME, ifname ? ifname : "?");
  return TRUE;
}

gboolean
wf_ack_prio_counters (WfAckPrio *ap, guint64 out[WF_ACKPRIO_N], GError **error)
{
  int err = wf_tc_bpf_percpu_sums (bpf_map__fd (ap->skel->maps.counters), WF_ACKPRIO_N, out);

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
  return ap->link.ifname;
}
