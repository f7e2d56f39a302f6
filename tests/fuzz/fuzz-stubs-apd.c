/* SPDX-License-Identifier: GPL-2.0-or-later */
/* run-fuzz only: what the apd parsers reach beyond themselves, whose real
 * files need tc, nl80211, libbpf or a BPF skeleton. The corpus tests link
 * libapd instead. The registry has the real names and knobs. */
#include <stdlib.h>

#include "wlanfair-actuator.h"
#include "wlanfair-apd-receiver.h"

static const WfActuatorOps rate = { .name = "rate", .knob = WF_ACTUATOR_KNOB_RATE };
static const WfActuatorOps delay = { .name = "delay", .knob = WF_ACTUATOR_KNOB_DELAY };
static const WfActuatorOps airtime = { .name = "airtime", .knob = WF_ACTUATOR_KNOB_WEIGHT };
static const WfActuatorOps rwnd = { .name = "rwnd", .knob = WF_ACTUATOR_KNOB_RATE };
static const WfActuatorOps fake = { .name = "fake", .knob = WF_ACTUATOR_KNOB_RATE };
static const WfActuatorOps *const actuators[] = { &rate, &delay, &airtime, &rwnd, &fake, NULL };

const WfActuatorOps *const *
wf_actuator_list (void)
{
  return actuators;
}

const WfActuatorOps *
wf_actuator_find (const char *name)
{
  for (guint k = 0; name && actuators[k]; k++)
    if (g_str_equal (actuators[k]->name, name))
      return actuators[k];
  return NULL;
}

/* The carried-frame target calls the parser alone, never the socket. */
void
wf_apd_receiver_handle_from (WfApdReceiver *r, const guint8 *data, gsize size,
                             const WfApdReportFrom *from)
{
  (void) r, (void) data, (void) size, (void) from;
  abort ();
}
