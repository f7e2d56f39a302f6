/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Runs the fuzz target once per file or per file of a directory, without
 * libFuzzer: the seed corpus as a regression test with any compiler. */
#include <glib.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static int
run_file (const char *path)
{
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  gsize len = 0;

  if (!g_file_get_contents (path, &data, &len, &error))
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  LLVMFuzzerTestOneInput ((const uint8_t *) data, len);
  return 0;
}

int
main (int argc, char **argv)
{
  int files = 0;

  for (int i = 1; i < argc; i++)
    {
      if (g_file_test (argv[i], G_FILE_TEST_IS_DIR))
        {
          g_autoptr(GDir) dir = g_dir_open (argv[i], 0, NULL);
          const char *name;

          while (dir && (name = g_dir_read_name (dir)))
            {
              g_autofree char *path = g_build_filename (argv[i], name, NULL);

              if (run_file (path))
                return 1;
              files++;
            }
        }
      else if (run_file (argv[i]))
        return 1;
      else
        files++;
    }
  printf ("ran %d inputs\n", files);
  return files > 0 ? 0 : 1;
}
