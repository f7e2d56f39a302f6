/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wlanfair-tcpd: registers ackloss_reno and ackloss_cubic, applies the
 * scope, and undoes all of it on stop (or at the next start after a crash).
 * Idle, it wakes once per WF_TCPD_REFRESH_S and writes nothing. */
#include "config.h"

#include <glib-unix.h>
#include <glib/gstdio.h>
#include <locale.h>
#include <malloc.h>
#include <math.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include "wlanfair-daemon.h"
#include "wlanfair-error.h"
#include "wlanfair-ifname.h"
#include "wlanfair-json-writer.h"
#include "wlanfair-output.h"
#include "wlanfair-readfile.h"
#include "wlanfair-file.h"
#include "wlanfair-textfile.h"
#include "wlanfair-tcp-loader.h"
#include "wlanfair-tcp-bpffs.h"
#include "wlanfair-tcp-routes.h"
#include "wlanfair-tcp-sysctl.h"
#include "wlanfair-tcp-wifi.h"
#include "wlanfair-tcpd-config.h"

#define EXIT_USAGE 2
#define DEFAULT_CONFIG SYSCONFDIR "/wlanfair/tcp.conf"
#define STATUS_NAME "tcp-status.json"
#define WF_TCPD_STATE_DIR_DEFAULT "/run/wlanfair"

/* How often the counters are compared with the status file's, which is
 * rewritten only when they differ: the reporter exports the file's, so
 * this bounds how far they lag (less than a 15 s Prometheus scrape), and
 * one wakeup per period is half the idle budget of 0.2 per second.
 * SIGUSR1 asks for fresh ones at once (wlanfairctl tcp status). */
#define WF_TCPD_REFRESH_S 10

typedef struct {
  WfTcpdConfig      config;
  WfTcpFeatures     features;
  WfTcpLoader      *bpf;
  WfTcpWifi        *wifi;
  WfTcpSysctlState  sysctl;
  gboolean          sysctl_applied;
  char             *status_path;
  /* The counters the status file holds. */
  struct wf_ackloss_counters counters[WF_CC_COUNT];
  gboolean          have_counters;
  GMainLoop        *loop;
  WfDaemon         *life;          /* SIGTERM/SIGINT, READY, STOPPING */
  int               exit_code;
  int               lock_fd;       /* pin directory */
  int               state_lock_fd; /* state directory */
} Daemon;

/* The state directory and the files the run writes there, by the rules
 * of wlanfair-file.h: the default one is ours (RuntimeDirectory=) and
 * made when `make`; one the user named must exist. --check runs it with
 * make FALSE. */
static gboolean
check_state_dir (const char *state_dir, gboolean make, GError **error)
{
  g_autofree char *state_path = g_build_filename (state_dir, "tcpd.state", NULL);
  g_autofree char *status_path = g_build_filename (state_dir, STATUS_NAME, NULL);

  if (g_str_equal (state_dir, WF_TCPD_STATE_DIR_DEFAULT))
    {
      if (make && !wf_file_make_own_dir (state_dir, 0755, error))
        return FALSE;
      if (!make && !g_file_test (state_dir, G_FILE_TEST_EXISTS))
        return TRUE;
    }
  return wf_file_check_dir (state_dir, error) &&
         wf_file_check (state_path, error) &&
         wf_file_check (status_path, error);
}

/* One instance per pin directory: a second one would take the first's
 * pinned registrations for a crashed instance's and unregister them. The
 * lock goes with the process, so a killed instance never blocks its
 * successor. Returns the locked fd, -1 with error when another process
 * holds it, or -2 when the directory cannot be made (no bpffs: nothing
 * can be pinned there either). */
static int
lock_pin_dir (const char *pin_dir, GError **error)
{
  int fd;

  /* One level: the pin directory sits on a bpffs that exists (a typed
   * --pin-dir /nonexistent/x must not create /nonexistent). */
  if ((g_mkdir (pin_dir, 0700) < 0 && errno != EEXIST) ||
      (fd = open (pin_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
    {
      g_debug ("%s: %s; not locked", pin_dir, g_strerror (errno));
      return -2;
    }
  if (flock (fd, LOCK_EX | LOCK_NB) < 0)
    {
      int e = errno;

      close (fd);
      if (e == EWOULDBLOCK)
        g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                     "another wlanfair-tcpd uses %s; stop it first", pin_dir);
      else
        g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "locking %s: %s", pin_dir, g_strerror (e));
      return -1;
    }
  return fd;
}

/* One instance per state directory: a second one, or a --cleanup, would
 * take the live one's saved sysctls for a crashed one's. The lock file
 * holds the owner's pid, for the message. Returns the open file (keep it),
 * -2 when the directory does not exist (nobody can be using it), -1 on
 * error. */
static int
lock_state_dir (const char *state_dir, gboolean cleanup, GError **error)
{
  g_autofree char *path = g_build_filename (state_dir, "tcpd.lock", NULL);
  g_autofree char *pid = NULL;
  int fd = open (path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

  if (fd < 0)
    {
      if (errno == ENOENT)
        return -2;
      g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "%s: %s", path, g_strerror (errno));
      return -1;
    }
  if (flock (fd, LOCK_EX | LOCK_NB) < 0)
    {
      int e = errno;

      close (fd);
      if (e != EWOULDBLOCK)
        {
          g_set_error (error, WF_ERROR, WF_ERROR_FAILED, "locking %s: %s", path, g_strerror (e));
          return -1;
        }
      /* A pid; anything larger is not ours to show. */
      wf_readfile_bounded (path, 64, "a lock file", &pid, NULL, NULL);
      g_strstrip (pid ? pid : (pid = g_strdup ("?")));
      if (cleanup)
        g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                     "an instance is running (pid %s); stop it instead", pid);
      else
        g_set_error (error, WF_ERROR, WF_ERROR_FAILED,
                     "another wlanfair-tcpd (pid %s) uses %s; stop it first", pid, state_dir);
      return -1;
    }
  if (!cleanup)
    {
      g_autofree char *me = g_strdup_printf ("%d\n", (int) getpid ());

      if (ftruncate (fd, 0) < 0 || pwrite (fd, me, strlen (me), 0) < 0)
        g_debug ("%s: %s", path, g_strerror (errno));
    }
  return fd;
}

/* cgroup v2 root, wherever it is mounted (unified or hybrid hierarchy). */
static char *
find_cgroup2 (void)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;

  if (!g_file_get_contents ("/proc/self/mountinfo", &text, NULL, NULL))
    return NULL;
  lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      g_auto(GStrv) f = g_strsplit (*l, " ", -1);
      guint n = g_strv_length (f);

      /* ... mount-point ... - fstype source options */
      for (guint i = 6; i + 1 < n; i++)
        if (g_str_equal (f[i], "-") && g_str_equal (f[i + 1], "cgroup2"))
          return g_strdup (f[4]);
    }
  return NULL;
}

/* Writes d->counters with the settings; atomically (a reader never sees
 * half) and without fsync: the file is runtime state, and an fsync blocks
 * on a disk. */
static gboolean
write_status (Daemon *d, GError **error)
{
  WfJsonWriter *w = wf_json_writer_new ();
  g_autofree char *text = NULL;

#define MEMBER(kind, name, value) \
  wf_json_writer_member (w, name); \
  wf_json_writer_##kind (w, value)
  wf_json_writer_begin_object (w);
  MEMBER (int, "version", 1);
  MEMBER (int, "pid", getpid ());
  /* When the file was written: its content changed, or fresh counters
   * were asked for. */
  MEMBER (int, "updated", g_get_real_time () / G_USEC_PER_SEC);
  /* Also says that SIGUSR1 asks for fresh counters: to an older daemon it
   * was fatal. */
  MEMBER (int, "refresh_s", WF_TCPD_REFRESH_S);
  MEMBER (string, "scope", wf_tcpd_scope_names[d->config.scope]);
  MEMBER (string, "cc", wf_tcp_cc_names[d->config.cc]);
  MEMBER (int, "thresh", d->config.thresh);
  MEMBER (double, "beta", d->config.beta);
  MEMBER (int, "confirm", d->config.confirm);
  MEMBER (double, "confirm_rate", d->config.confirm_rate);
  MEMBER (double, "min_queue_delay_ms", d->config.min_queue_delay);
  MEMBER (string, "reduction", wf_tcpd_reduction_names[d->config.reduction]);
  MEMBER (string, "registration", d->features.link ? "struct_ops link" : "struct_ops map (legacy)");
  wf_json_writer_member (w, "interfaces");
  wf_json_writer_begin_array (w);
  for (char **i = d->config.interfaces; i && *i; i++)
    wf_json_writer_string (w, *i);
  wf_json_writer_end_array (w);
  wf_json_writer_member (w, "registered");
  wf_json_writer_begin_object (w);
  for (guint cc = 0; cc < WF_CC_COUNT; cc++)
    {
      if (!wf_tcp_loader_has_cc (d->bpf, cc))
        continue;
      wf_json_writer_member (w, wf_tcp_cc_names[cc]);
      wf_json_writer_begin_object (w);
      if (d->have_counters)
        {
          const struct wf_ackloss_counters *c = &d->counters[cc];
#define COUNTER(name) MEMBER (int, #name, (gint64) c->name)
          COUNTER (acks);
          COUNTER (ack_losses);
          COUNTER (halvings);
          COUNTER (suppressed_data_loss);
          COUNTER (suppressed_reorder);
          COUNTER (suppressed_unconfirmed);
          COUNTER (suppressed_fallback);
          COUNTER (suppressed_no_queue);
          COUNTER (drained);
          COUNTER (repaired_ssthresh);
          COUNTER (repaired_cwnd);
#undef COUNTER
        }
      wf_json_writer_end_object (w);
    }
  wf_json_writer_end_object (w);
  wf_json_writer_end_object (w);
#undef MEMBER

  text = wf_json_writer_free_to_string (w);
  /* 0644: the reporter and wlanfairctl read it without privilege. */
  return wf_textfile_write (d->config.state_dir, STATUS_NAME, text, error);
}

/* Reads the counters and rewrites the status file if they changed, or in
 * any case with force (a request: the requester waits for a new file). */
static gboolean
wf_tcpd_status_refresh (Daemon *d, gboolean force, GError **error)
{
  struct wf_ackloss_counters now[WF_CC_COUNT];
  g_autoptr(GError) local = NULL;
  gboolean have = wf_tcp_loader_read_counters (d->bpf, now, &local);

  if (!have)
    g_debug ("%s", local->message);
  if (!force && have == d->have_counters &&
      (!have || memcmp (now, d->counters, sizeof now) == 0))
    return TRUE;
  d->have_counters = have;
  if (have)
    memcpy (d->counters, now, sizeof now);
  return write_status (d, error);
}

static void
refresh_now (Daemon *d, gboolean force)
{
  g_autoptr(GError) error = NULL;

  if (d->bpf && !wf_tcpd_status_refresh (d, force, &error))
    g_warning ("%s", error->message);
}

static gboolean
refresh_tick (gpointer data)
{
  refresh_now (data, FALSE);
  return G_SOURCE_CONTINUE;
}

static gboolean
refresh_requested (gpointer data)
{
  refresh_now (data, TRUE);
  return G_SOURCE_CONTINUE;
}

static void
wifi_changed (GArray *keys, gpointer data)
{
  Daemon *d = data;
  g_autoptr(GError) error = NULL;

  if (!wf_tcp_loader_set_wifi_addrs (d->bpf, keys, &error))
    g_warning ("%s", error->message);
}

/* tcp_allowed_congestion_control is global: read-only (0444) outside
 * the initial network namespace, which proc enforces even for root. */
static gboolean
allowed_list_writable (void)
{
  return g_access ("/proc/sys/" WF_SYSCTL_ALLOWED_CC, W_OK) == 0;
}

/* Routes naming our CCs, whoever set them: with the CCs gone they would
 * name nothing. Warns and carries on (the CCs must go all the same). */
static gboolean
clear_routes (GError **error)
{
  g_autoptr(GError) local = NULL;
  guint n = 0;

  if (!wf_tcp_routes_clear_cc (wf_tcp_cc_names, &n, &local))
    {
      g_warning ("%s", local->message);
      if (error && *error == NULL)
        g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  return TRUE;
}

/* Everything the daemon changed, undone in the safe order: defaults and
 * the allowed list first, then nothing hands the CCs out, then they go. */
static gboolean
teardown (Daemon *d)
{
  g_autoptr(GError) error = NULL;
  gboolean ok = TRUE;

  if (d->sysctl_applied && !wf_tcp_sysctl_restore (&d->sysctl, wf_tcp_cc_names, &error))
    {
      g_warning ("restoring sysctls: %s", error->message);
      ok = FALSE;
    }
  if (d->bpf && !clear_routes (&error))
    ok = FALSE;
  g_clear_pointer (&d->wifi, wf_tcp_wifi_free);
  if (d->bpf)
    {
      gboolean cubic = wf_tcp_loader_has_cc (d->bpf, WF_CC_CUBIC);

      g_clear_pointer (&d->bpf, wf_tcp_loader_free);
      g_message ("unregistered ackloss_reno%s", cubic ? " and ackloss_cubic" : "");
    }
  /* A regular file alone: never what was put there since. */
  if (d->status_path)
    wf_file_remove (d->status_path, NULL);
  return ok;
}

static gboolean
start (Daemon *d, GError **error)
{
  WfTcpdConfig *c = &d->config;
  WfTcpLoaderConfig bc = {
    .thresh = c->thresh,
    .beta = (guint) lround (c->beta * WF_ACKLOSS_ONE),
    .confirm = c->confirm,
    .confirm_rate = (guint) lround (c->confirm_rate / 100 * WF_ACKLOSS_RATE_ONE),
    .min_qdelay_us = (guint) lround (c->min_queue_delay * 1000),
    .reduction = c->reduction,
    .scope_cc = c->scope == WF_TCPD_SCOPE_WIFI ? wf_tcp_cc_names[c->cc] : NULL,
    .pin_dir = c->pin_dir,
  };
  g_autofree char *state_path = g_build_filename (c->state_dir, "tcpd.state", NULL);

  if (!wf_tcp_features_probe (&d->features, error))
    return FALSE;
  if (!check_state_dir (c->state_dir, TRUE, error))
    return FALSE;
  d->state_lock_fd = lock_state_dir (c->state_dir, FALSE, error);
  if (d->state_lock_fd == -1)
    return FALSE;
  g_message ("kernel: BTF yes, reno kfuncs yes, cubic kfuncs %s; libbpf %u.%u; "
             "registering with %s",
             d->features.cubic_kfuncs ? "yes" : "no (ackloss_cubic unavailable)",
             d->features.libbpf_major, d->features.libbpf_minor,
             d->features.link ? "struct_ops links (unregistered when this process exits)"
                              : "legacy struct_ops maps (pinned for crash cleanup)");
  if (c->cc == WF_CC_CUBIC && !d->features.cubic_kfuncs)
    {
      g_set_error_literal (error, WF_ERROR, WF_ERROR_FAILED,
                           "cc=ackloss_cubic needs CUBIC built into the kernel "
                           "(cubictcp_* kfuncs); use cc=ackloss_reno");
      return FALSE;
    }

  /* Legacy registrations outlive a crashed process: without a pin the
   * clean-up could not find them, so nothing is registered unpinnable. */
  if (!d->features.link)
    {
      gboolean mounted;

      if (!wf_tcp_bpffs_prepare (c->pin_dir, &mounted, error))
        return FALSE;
      if (mounted)
        g_message ("mounted a BPF filesystem at %s: none was mounted, and legacy "
                   "registrations are pinned there for clean-up after a crash "
                   "(it stays mounted, as systemd would have it)", WF_TCP_BPFFS_ROOT);
    }
  d->lock_fd = lock_pin_dir (c->pin_dir, error);
  if (d->lock_fd == -1)
    return FALSE;

  /* What a crashed instance left: first its sysctls, so that no default
   * names a CC, then its registrations. */
  if (!wf_tcp_sysctl_recover (state_path, wf_tcp_cc_names, error))
    return FALSE;
  clear_routes (NULL);
  if (!wf_tcp_loader_cleanup_stale (c->pin_dir, error))
    return FALSE;

  d->bpf = wf_tcp_loader_load (&bc, &d->features, error);
  if (d->bpf == NULL)
    return FALSE;
  g_message ("registered %s%s (thresh %u, beta %g, confirm %u, confirm-rate %g %%, "
             "min-queue-delay %g ms, reduction %s)",
             "ackloss_reno", wf_tcp_loader_has_cc (d->bpf, WF_CC_CUBIC) ? " and ackloss_cubic" : "",
             c->thresh, c->beta, c->confirm, c->confirm_rate, c->min_queue_delay,
             wf_tcpd_reduction_names[c->reduction]);

  d->sysctl.path = g_steal_pointer (&state_path);
  switch (c->scope)
    {
    case WF_TCPD_SCOPE_WIFI:
      {
        g_autofree char *cgroup = c->cgroup ? g_strdup (c->cgroup) : find_cgroup2 ();

        if (cgroup == NULL)
          {
            g_set_error_literal (error, WF_ERROR, WF_ERROR_FAILED,
                                 "scope=wifi needs a cgroup v2 hierarchy, none is mounted");
            return FALSE;
          }
        if (!wf_tcp_loader_attach_cgroup (d->bpf, cgroup, error))
          return FALSE;
        d->wifi = wf_tcp_wifi_new (c->interfaces, wifi_changed, d, error);
        if (d->wifi == NULL)
          return FALSE;
        g_message ("scope wifi: new connections from %s addresses get %s (cgroup %s)",
                   c->interfaces && c->interfaces[0] ? "the configured interfaces'" : "Wi-Fi",
                   wf_tcp_cc_names[c->cc], cgroup);
        break;
      }
    case WF_TCPD_SCOPE_SYSTEM:
      {
        const char *allow[] = { wf_tcp_cc_names[c->cc], NULL };

        d->sysctl_applied = TRUE;
        if (!wf_tcp_sysctl_apply (&d->sysctl, allow, wf_tcp_cc_names[c->cc], error))
          return FALSE;
        break;
      }
    case WF_TCPD_SCOPE_OPT_IN:
      {
        const char *allow[WF_CC_COUNT + 1] = { NULL };
        guint n = 0;

        for (guint cc = 0; cc < WF_CC_COUNT; cc++)
          if (wf_tcp_loader_has_cc (d->bpf, cc))
            allow[n++] = wf_tcp_cc_names[cc];
        d->sysctl_applied = TRUE;
        if (!wf_tcp_sysctl_apply (&d->sysctl, allow, NULL, error))
          return FALSE;
        break;
      }
    }

  d->status_path = g_build_filename (c->state_dir, STATUS_NAME, NULL);
  /* Parsing the kernel's BTF (probe and load) peaks at several MiB that
   * the daemon never needs again: give it back. */
  malloc_trim (0);
  return wf_tcpd_status_refresh (d, TRUE, error);
}

int
main (int argc, char **argv)
{
  Daemon d = { .lock_fd = -2, .state_lock_fd = -2 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GOptionContext) ctx = g_option_context_new (NULL);
  g_autofree char *config_path = NULL, *scope = NULL, *cc = NULL, *thresh = NULL, *beta = NULL;
  g_autofree char *confirm = NULL, *confirm_rate = NULL, *min_queue_delay = NULL;
  g_autofree char *reduction = NULL;
  g_auto(GStrv) interfaces = NULL;
  gboolean version = FALSE, check = FALSE, cleanup = FALSE;
  const GOptionEntry entries[] = {
    { "config", 0, 0, G_OPTION_ARG_FILENAME, &config_path,
      "Configuration file (default " DEFAULT_CONFIG ")", "FILE" },
    { "scope", 0, 0, G_OPTION_ARG_STRING, &scope,
      "Which connections use the CC: wifi (default), system, opt-in", "SCOPE" },
    { "cc", 0, 0, G_OPTION_ARG_STRING, &cc,
      "ackloss_cubic (default) or ackloss_reno", "CC" },
    { "thresh", 0, 0, G_OPTION_ARG_STRING, &thresh,
      "Lost ACKs per round that count as congestion (default 1)", "N" },
    { "beta", 0, 0, G_OPTION_ARG_STRING, &beta,
      "Smoothing factor of the ACK span estimate (default 0.125)", "X" },
    { "confirm", 0, 0, G_OPTION_ARG_STRING, &confirm,
      "Lost ACKs the waiting round must count too before a halving "
      "(0: the published rule)", "N" },
    { "confirm-rate", 0, 0, G_OPTION_ARG_STRING, &confirm_rate,
      "Or: the share of lost ACKs, in percent, that confirms a detection at once "
      "(default 0.5; 0: off)", "PERCENT" },
    { "min-queue-delay", 0, 0, G_OPTION_ARG_STRING, &min_queue_delay,
      "Halve only when the RTT is this far above its minimum (default 1; 0: off)", "MS" },
    { "reduction", 0, 0, G_OPTION_ARG_STRING, &reduction,
      "What a detection does to cwnd: drain (default: down to "
      "cwnd x min RTT / RTT where that is less than half), halve, or auto "
      "(halve where the receiver ACKs every segment, drain where not)", "HOW" },
    { "interface", 'i', 0, G_OPTION_ARG_STRING_ARRAY, &interfaces,
      "A Wi-Fi interface for scope=wifi (repeatable; default: all wireless)", "IFACE" },
    { "cgroup", 0, 0, G_OPTION_ARG_FILENAME, &d.config.cgroup,
      "cgroup v2 directory for scope=wifi (default: the root)", "DIR" },
    { "state-dir", 0, 0, G_OPTION_ARG_FILENAME, &d.config.state_dir,
      "Runtime state (default /run/wlanfair)", "DIR" },
    { "pin-dir", 0, 0, G_OPTION_ARG_FILENAME, &d.config.pin_dir,
      "bpffs directory for legacy registrations (default /sys/fs/bpf/wlanfair)", "DIR" },
    { "cleanup", 0, 0, G_OPTION_ARG_NONE, &cleanup,
      "Undo what a crashed instance left (sysctls, registrations), then exit", NULL },
    { "check", 0, 0, G_OPTION_ARG_NONE, &check,
      "Print what the kernel and libbpf support, then exit", NULL },
    { "version", 'V', 0, G_OPTION_ARG_NONE, &version, "Print the version", NULL },
    { NULL },
  };

  /* --help, --version, --check: their output checked at exit. */
  wf_output_close_at_exit ();
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");
  g_set_prgname ("wlanfair-tcpd");
  wf_tcpd_config_init (&d.config);
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_summary (ctx,
    "Registers the ACK-loss TCP congestion controls (ackloss_cubic,\n"
    "ackloss_reno) and applies them to Wi-Fi connections, the whole system,\n"
    "or applications that ask. Undoes everything when it stops.");
  g_option_context_set_description (ctx, "See wlanfair-tcpd(8).");
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      g_printerr ("wlanfair-tcpd: %s (see --help)\n", error->message);
      d.exit_code = EXIT_USAGE;
      goto out;
    }
  if (argc > 1)
    {
      g_printerr ("wlanfair-tcpd: unexpected argument '%s' (see --help)\n", argv[1]);
      d.exit_code = EXIT_USAGE;
      goto out;
    }
  if (version)
    {
      printf ("wlanfair-tcpd %s\n", PACKAGE_VERSION);
      goto out;
    }

  {
    /* The options override the file's keys; each is checked as its key is. */
    const char *const set[][2] = {
      { "scope", scope }, { "cc", cc }, { "thresh", thresh }, { "beta", beta },
      { "confirm", confirm }, { "confirm-rate", confirm_rate },
      { "min-queue-delay", min_queue_delay }, { "reduction", reduction },
    };
    gboolean ok = wf_tcpd_config_load (&d.config, config_path ? config_path : DEFAULT_CONFIG,
                                       config_path != NULL, &error);

    for (gsize k = 0; ok && k < G_N_ELEMENTS (set); k++)
      if (set[k][1])
        ok = wf_tcpd_config_set (&d.config, set[k][0], set[k][1], &error);
    /* The one rule for interface names (wlanfair-ifname.h). */
    for (char **i = interfaces; ok && i && *i; i++)
      ok = wf_ifname_validate ("-i", *i, &error);
    if (!ok)
      {
        g_printerr ("wlanfair-tcpd: %s (see --help)\n", error->message);
        d.exit_code = EXIT_USAGE;
        goto out;
      }
  }
  if (interfaces)
    {
      g_strfreev (d.config.interfaces);
      d.config.interfaces = g_steal_pointer (&interfaces);
    }
  if (d.config.interfaces && d.config.scope != WF_TCPD_SCOPE_WIFI)
    {
      g_printerr ("wlanfair-tcpd: interfaces are only used with scope=wifi (see --help)\n");
      d.exit_code = EXIT_USAGE;
      goto out;
    }
  if (!d.config.state_dir)
    d.config.state_dir = g_strdup (WF_TCPD_STATE_DIR_DEFAULT);
  if (!d.config.pin_dir)
    d.config.pin_dir = g_strdup (WF_TCP_PIN_DIR_DEFAULT);

  if (check)
    {
      WfTcpFeatures f;
      gboolean ok = wf_tcp_features_probe (&f, &error);
      g_autoptr(GString) ifs = g_string_new (NULL);
      /* Found as the run finds it. */
      g_autofree char *cgroup = d.config.cgroup ? g_strdup (d.config.cgroup) : find_cgroup2 ();

      for (char **i = d.config.interfaces; i && *i; i++)
        if (**i)
          g_string_append_printf (ifs, "%s%s", ifs->len ? "," : "", *i);
      /* Every effective setting (the file's, then the options over it),
       * then what the kernel offers. */
      printf ("config scope=%s cc=%s thresh=%u beta=%g confirm=%u confirm-rate=%g "
              "min-queue-delay=%g reduction=%s interfaces=%s cgroup=%s state-dir=%s "
              "pin-dir=%s\n",
              wf_tcpd_scope_names[d.config.scope], wf_tcp_cc_names[d.config.cc],
              d.config.thresh, d.config.beta, d.config.confirm, d.config.confirm_rate,
              d.config.min_queue_delay, wf_tcpd_reduction_names[d.config.reduction],
              ifs->len ? ifs->str : "all-wireless",
              cgroup ? cgroup : "none-mounted",
              d.config.state_dir, d.config.pin_dir);
      printf ("btf %s\nreno_kfuncs %s\ncubic_kfuncs %s\nstruct_ops_link %s\nlibbpf %u.%u\n",
              f.btf ? "yes" : "no", f.reno_kfuncs ? "yes" : "no",
              f.cubic_kfuncs ? "yes" : "no", f.link ? "yes" : "no",
              f.libbpf_major, f.libbpf_minor);
      if (!ok)
        g_printerr ("wlanfair-tcpd: %s\n", error->message);
      g_clear_error (&error);
      /* The paths exactly as the run would take them, nothing written. */
      if (check_state_dir (d.config.state_dir, FALSE, &error))
        printf ("state_dir %s ok\n", d.config.state_dir);
      else
        {
          printf ("state_dir %s FAILED\n", d.config.state_dir);
          g_printerr ("wlanfair-tcpd: state-dir: %s\n", error->message);
          ok = FALSE;
        }
      d.exit_code = ok ? 0 : 1;
      goto out;
    }

  if (cleanup)
    {
      g_autofree char *state_path = g_build_filename (d.config.state_dir, "tcpd.state", NULL);
      g_autofree char *status_path = g_build_filename (d.config.state_dir, STATUS_NAME, NULL);

      /* Cleaning up under a live daemon would pull its CCs away. */
      d.state_lock_fd = lock_state_dir (d.config.state_dir, TRUE, &error);
      if (d.state_lock_fd == -1)
        {
          g_printerr ("wlanfair-tcpd: %s\n", error->message);
          d.exit_code = 1;
          goto out;
        }
      d.lock_fd = lock_pin_dir (d.config.pin_dir, &error);
      if (d.lock_fd == -1)
        {
          g_printerr ("wlanfair-tcpd: %s\n", error->message);
          d.exit_code = 1;
          goto out;
        }

      /* ExecStopPost: after a clean stop there is nothing left to do. */
      /* Routes are fixed where they can be; the CCs go in any case. */
      gboolean ok = wf_tcp_sysctl_recover (state_path, wf_tcp_cc_names, &error);

      ok = clear_routes (ok ? &error : NULL) && ok;
      ok = wf_tcp_loader_cleanup_stale (d.config.pin_dir, ok ? &error : NULL) && ok;
      if (!ok)
        {
          g_printerr ("wlanfair-tcpd: %s\n", error->message);
          d.exit_code = 1;
        }
      wf_file_remove (status_path, NULL);
      goto out;
    }

  if (d.config.scope != WF_TCPD_SCOPE_WIFI && !allowed_list_writable ())
    {
      g_printerr ("wlanfair-tcpd: scope=%s changes tcp_allowed_congestion_control, which "
                  "only the initial network namespace can write; use scope=wifi here\n",
                  wf_tcpd_scope_names[d.config.scope]);
      d.exit_code = 1;
      goto out;
    }

  d.loop = g_main_loop_new (NULL, FALSE);
  d.life = wf_daemon_new (G_LOG_DOMAIN, d.loop, "stopping");
  /* Before the status file names our pid: without a handler SIGUSR1
   * would end the process without restoring anything. */
  g_unix_signal_add (SIGUSR1, refresh_requested, &d);
  /* A log reader that went away (a parent's pipe, a restarted journal)
   * must not kill us before we unregister: legacy registrations outlive
   * the process. */
  signal (SIGPIPE, SIG_IGN);

  if (!start (&d, &error))
    {
      g_printerr ("wlanfair-tcpd: %s\n", error->message);
      teardown (&d);
      d.exit_code = 1;
      goto out;
    }

  wf_daemon_ready (d.life, "%s registered, scope %s",
                   wf_tcp_cc_names[d.config.cc], wf_tcpd_scope_names[d.config.scope]);
  g_timeout_add_seconds (WF_TCPD_REFRESH_S, refresh_tick, &d);
  g_main_loop_run (d.loop);
  wf_daemon_stopping (d.life);
  d.exit_code = teardown (&d) ? 0 : 1;

out:
  g_clear_pointer (&d.life, wf_daemon_free);
  g_clear_pointer (&d.loop, g_main_loop_unref);
  g_free (d.sysctl.path);
  g_free (d.sysctl.saved_default);
  g_free (d.status_path);
  wf_tcpd_config_clear (&d.config);
  if (d.lock_fd >= 0)
    close (d.lock_fd);
  if (d.state_lock_fd >= 0)
    close (d.state_lock_fd);
  return d.exit_code;
}
