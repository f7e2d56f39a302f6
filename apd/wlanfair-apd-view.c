/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include "wlanfair-apd-view.h"

const char *
wf_apd_mode_name (WfApdMode mode)
{
  switch (mode)
    {
    case WF_APD_MODE_CONTROL: return "control";
    case WF_APD_MODE_FAIL_OPEN: return "fail-open";
    case WF_APD_MODE_OBSERVE: default: return "observe";
    }
}
