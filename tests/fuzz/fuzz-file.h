/* SPDX-License-Identifier: GPL-2.0-or-later */
/* For parsers that take a path: the input in a memfd, named by
 * /proc/self/fd/N, so that a fuzz run never touches the disk. */
#pragma once

/* memfd_create(); so this header comes first. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* The path of a file holding exactly data[0..size); one memfd per
 * process, rewritten for each input. */
static inline const char *
fuzz_file (const uint8_t *data, size_t size)
{
  static int fd = -1;
  static char path[64];

  if (fd < 0)
    {
      fd = memfd_create ("fuzz-input", MFD_CLOEXEC);
      if (fd < 0)
        {
          perror ("memfd_create");
          abort ();
        }
      g_snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
    }
  if (ftruncate (fd, 0) < 0 || (size > 0 && pwrite (fd, data, size, 0) != (ssize_t) size))
    {
      perror ("memfd write");
      abort ();
    }
  return path;
}

/* Every failure carries a message: a parser that returns FALSE without
 * one leaves the user with nothing to fix. */
static inline void
fuzz_check_error (gboolean ok, const GError *error)
{
  if (ok != (error == NULL))
    {
      fprintf (stderr, "returned %d with error %s\n", ok, error ? error->message : "(none)");
      abort ();
    }
  /* Not UTF-8 checked: GKeyFile quotes a malformed line as it is. */
  if (error && (error->message == NULL || error->message[0] == '\0'))
    {
      fprintf (stderr, "error without a readable message\n");
      abort ();
    }
}
