/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* wpa_supplicant over D-Bus (fi.w1.wpa_supplicant1): its interfaces, their
 * state and current network, and the live bgscan of a network. */

#define WF_WPAS_NAME "fi.w1.wpa_supplicant1"

typedef struct _WfWpas WfWpas;
typedef struct _WfWpasIface WfWpasIface;

typedef enum {
  WF_WPAS_CHANGED_STATE    = 1 << 0,
  WF_WPAS_CHANGED_NETWORK  = 1 << 1,  /* CurrentNetwork */
  WF_WPAS_CHANGED_BSS      = 1 << 2,  /* CurrentBSS */
  WF_WPAS_CHANGED_SCANNING = 1 << 3,
} WfWpasChange;

typedef struct {
  /* The name got an owner (start or restart), before its interfaces. */
  void (*appeared)        (WfWpas *wpas, const char *owner, gpointer user_data);
  /* The owner left; iface_removed was called for each interface first. */
  void (*vanished)        (WfWpas *wpas, gpointer user_data);
  void (*iface_added)     (WfWpasIface *iface, gpointer user_data);
  void (*iface_removed)   (WfWpasIface *iface, gpointer user_data);
  void (*iface_changed)   (WfWpasIface *iface, WfWpasChange what, gpointer user_data);
  void (*network_added)   (WfWpasIface *iface, const char *path, gpointer user_data);
  void (*network_removed) (WfWpasIface *iface, const char *path, gpointer user_data);
} WfWpasCallbacks;

WfWpas     *wf_wpas_new   (GDBusConnection       *bus,
                           const WfWpasCallbacks *callbacks,
                           gpointer               user_data);
void        wf_wpas_free  (WfWpas *wpas);
/* Unique bus name of the running wpa_supplicant, NULL when not running. */
GDBusConnection *wf_wpas_bus (WfWpas *wpas);
const char *wf_wpas_owner (WfWpas *wpas);

const char *wf_wpas_iface_path            (WfWpasIface *iface);
const char *wf_wpas_iface_ifname          (WfWpasIface *iface);
const char *wf_wpas_iface_state           (WfWpasIface *iface);
/* NULL when none ("/"). */
const char *wf_wpas_iface_current_network (WfWpasIface *iface);
const char *wf_wpas_iface_current_bss     (WfWpasIface *iface);
gboolean    wf_wpas_iface_scanning        (WfWpasIface *iface);
void        wf_wpas_iface_set_data        (WfWpasIface *iface, gpointer data);
gpointer    wf_wpas_iface_get_data        (WfWpasIface *iface);

/* Reads the interface's properties again with a direct GetAll (not from
 * change notifications) and returns what changed. */
WfWpasChange wf_wpas_iface_reload (WfWpasIface *iface);

/* Counts NetworkAdded/NetworkRemoved signals as they arrive (in message
 * order, before the replies that follow them): unchanged across a read and
 * a write means no network was removed or re-created in between. */
guint wf_wpas_network_generation (WfWpas *wpas);

/* bgscan of a network, unquoted; *value = NULL when the network has no
 * bgscan of its own. Synchronous (local daemon, 2 s timeout). */
gboolean wf_wpas_get_bgscan (GDBusConnection *bus,
                             const char  *owner,
                             const char  *network_path,
                             char       **value,
                             GError     **error);
/* Writes bgscan (unquoted; "" stops bgscan) and nothing else. */
gboolean wf_wpas_set_bgscan (GDBusConnection *bus,
                             const char  *owner,
                             const char  *network_path,
                             const char  *value,
                             GError     **error);

/* What became of a bgscan write, as a read after it shows. wpa_supplicant
 * handles its D-Bus messages one at a time, in the order the bus delivers
 * them: a read answered after a write was sent shows the write if it was
 * ever going to land, even when the write's own answer never came. */
typedef enum {
  WF_WPAS_WRITE_DONE,         /* a read after the write shows the value */
  WF_WPAS_WRITE_NOT_APPLIED,  /* refused, or a read after it shows another value */
  WF_WPAS_WRITE_UNKNOWN,      /* neither the write nor the read answered: it may still land */
  WF_WPAS_WRITE_GONE,         /* the network (or wpa_supplicant) is gone */
} WfWpasWrite;

/* The one bgscan write step of the guard (suppress, restore, --restore
 * and the crash state alike): writes `value`, then reads it back, whether
 * the write was answered, refused or timed out. `*now` is what the read
 * showed (NULL: absent or not read); `error` says why when the outcome is
 * not DONE. */
WfWpasWrite wf_wpas_write_bgscan (GDBusConnection *bus,
                                  const char  *owner,
                                  const char  *network_path,
                                  const char  *value,
                                  char       **now,
                                  GError     **error);
/* A D-Bus error that means the network object (or the process) is gone. */
gboolean wf_wpas_error_is_gone (const GError *error);

/* SignalPoll's rssi, else the Signal of CurrentBSS. */
gboolean wf_wpas_signal (WfWpasIface *iface,
                         int         *dbm,
                         GError     **error);
gboolean wf_wpas_abort_scan (WfWpasIface *iface,
                             GError     **error);

/* A string option as wpa_supplicant's Properties getter returns it:
 * "\"text\"" -> "text", hex digits -> the bytes they encode; NULL when it
 * cannot be decoded. Pure, unit-tested. */
char *wf_wpas_unquote (const char *raw);

G_END_DECLS
