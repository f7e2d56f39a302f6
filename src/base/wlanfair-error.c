/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "wlanfair-error.h"

G_DEFINE_QUARK (wlanfair-error-quark, wf_error)
