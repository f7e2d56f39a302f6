/* SPDX-License-Identifier: GPL-2.0-or-later */
/* wf_text_escape(), wf_text_width(), wf_text_fit(): untrusted text made
 * safe and aligned for a terminal. */
#include <string.h>

#include "wlanfair-text.h"

static void
check_escape (const char *in, const char *want)
{
  g_autofree char *got = wf_text_escape (in);

  g_assert_cmpstr (got, ==, want);
  /* The result is plain for a terminal: valid UTF-8, no control. */
  g_assert_true (g_utf8_validate (got, -1, NULL));
  for (const char *p = got; *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      g_assert_false (g_unichar_iscntrl (c));
      g_assert_cmpint (g_unichar_type (c), !=, G_UNICODE_FORMAT);
    }
}

static void
test_plain (void)
{
  check_escape (NULL, "");
  check_escape ("", "");
  check_escape ("laptop-1.example", "laptop-1.example");
  check_escape ("café", "café");
  check_escape ("東京", "東京");
  /* A combining mark is text, not a control. */
  check_escape ("e\xcc\x81", "e\xcc\x81");
}

static void
test_c0_del (void)
{
  check_escape ("a\033[2Jb", "a\\e[2Jb");
  check_escape ("a\nb\rc\td", "a\\nb\\rc\\td");
  check_escape ("\001\037", "\\x01\\x1f");
  check_escape ("x\177y", "x\\x7fy");
  /* An escape cannot be forged: the backslash is escaped too. */
  check_escape ("\\e", "\\\\e");
}

static void
test_c1 (void)
{
  /* U+0085 (NEL), U+009B (CSI) as UTF-8. */
  check_escape ("a\xc2\x85" "b", "a\\u0085b");
  check_escape ("\xc2\x9b" "2J", "\\u009b2J");
  check_escape ("\xc2\x80", "\\u0080");
}

static void
test_bidi_format (void)
{
  /* U+202E RIGHT-TO-LEFT OVERRIDE, U+202A, U+2066..U+2069 isolates. */
  check_escape ("evil\xe2\x80\xaegnp.exe", "evil\\u202egnp.exe");
  check_escape ("\xe2\x80\xaa", "\\u202a");
  check_escape ("\xe2\x81\xa6x\xe2\x81\xa9", "\\u2066x\\u2069");
  /* Other format characters: U+200B, U+200F, U+FEFF; U+2028 LINE
   * SEPARATOR. */
  check_escape ("a\xe2\x80\x8b" "b", "a\\u200bb");
  check_escape ("\xe2\x80\x8f", "\\u200f");
  check_escape ("\xef\xbb\xbfhost", "\\ufeffhost");
  check_escape ("a\xe2\x80\xa8" "b", "a\\u2028b");
  /* Outside the BMP: U+E0001 LANGUAGE TAG (Cf). */
  check_escape ("\xf3\xa0\x80\x81", "\\U000e0001");
}

static void
test_invalid_utf8 (void)
{
  /* A lone continuation byte (0x85: NEL in Latin-1), a truncated
   * sequence, an overlong '/', a lone surrogate: each byte escaped, the
   * valid text around kept. */
  check_escape ("a\x85" "b", "a\\x85b");
  check_escape ("\xe2\x80", "\\xe2\\x80");
  check_escape ("\xc0\xaf", "\\xc0\\xaf");
  check_escape ("\xed\xa0\x80z", "\\xed\\xa0\\x80z");
  check_escape ("\xff\xfe" "ok", "\\xff\\xfeok");
}

static void
test_width (void)
{
  g_assert_cmpuint (wf_text_width (NULL, 0), ==, 0);
  g_assert_cmpuint (wf_text_width ("host", 0), ==, 4);
  /* Wide and fullwidth: 2 columns each; combining marks 0. */
  g_assert_cmpuint (wf_text_width ("東京", 0), ==, 4);
  g_assert_cmpuint (wf_text_width ("\xef\xbc\xa1", 0), ==, 2);      /* U+FF21 Ａ */
  g_assert_cmpuint (wf_text_width ("e\xcc\x81", 0), ==, 1);
  /* Escapes count as what is shown. */
  g_assert_cmpuint (wf_text_width ("\033", 0), ==, 2);
  g_assert_cmpuint (wf_text_width ("\xe2\x80\xae", 0), ==, 6);
  g_assert_cmpuint (wf_text_width ("\x85", 0), ==, 4);
  /* Already escaped: the backslash is one column, not two. */
  g_assert_cmpuint (wf_text_width ("a\\eb", 0), ==, 5);
  g_assert_cmpuint (wf_text_width ("a\\eb", WF_TEXT_ESCAPED), ==, 4);
}

static void
test_fit (void)
{
  struct {
    const char    *in;
    gsize          columns;
    WfTextFlags flags;
    const char    *want;
  } cases[] = {
    { "ab", 5, WF_TEXT_LEFT, "ab   " },
    { "ab", 5, WF_TEXT_RIGHT, "   ab" },
    { "abcdef", 4, WF_TEXT_LEFT, "abcd" },
    { "abcdef", 4, WF_TEXT_KEEP, "abcdef" },
    { "ab", 4, WF_TEXT_KEEP | WF_TEXT_RIGHT, "  ab" },
    /* Wide characters pad to columns, not to characters or bytes. */
    { "東京", 6, WF_TEXT_LEFT, "東京  " },
    { "東京", 6, WF_TEXT_RIGHT, "  東京" },
    /* A wide character that does not fit whole is left out, padded for. */
    { "東京都", 5, WF_TEXT_LEFT, "東京 " },
    /* A combining mark stays with its base and takes no column. */
    { "e\xcc\x81x", 3, WF_TEXT_LEFT, "e\xcc\x81x " },
    /* Escapes are never cut in the middle. */
    { "ab\033", 5, WF_TEXT_LEFT, "ab\\e " },
    { "ab\033", 3, WF_TEXT_LEFT, "ab " },
    { "a\xe2\x80\xae", 7, WF_TEXT_LEFT, "a\\u202e" },
    { "a\xe2\x80\xae", 6, WF_TEXT_LEFT, "a     " },
    { NULL, 3, WF_TEXT_LEFT, "   " },
    { "abcdef", 4, WF_TEXT_CUT, "abcd" },
    { "ab", 4, WF_TEXT_CUT, "ab" },
    { "東京都", 5, WF_TEXT_CUT, "東京" },
    /* Already escaped: an escape is not escaped twice, a control still is. */
    { "a\\eb", 9, WF_TEXT_ESCAPED, "a\\eb     " },
    { "a\033b", 9, WF_TEXT_ESCAPED | WF_TEXT_CUT, "a\\eb" },
    { "abc", 0, WF_TEXT_LEFT, "" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *got = wf_text_fit (cases[i].in, cases[i].columns, cases[i].flags);

      g_test_message ("case %" G_GSIZE_FORMAT, i);
      g_assert_cmpstr (got, ==, cases[i].want);
      /* (Escapes would be escaped again.) */
      if (!(cases[i].flags & (WF_TEXT_KEEP | WF_TEXT_CUT)) && !strchr (got, '\\'))
        g_assert_cmpuint (wf_text_width (got, 0), ==, cases[i].columns);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/text/plain", test_plain);
  g_test_add_func ("/text/c0-del", test_c0_del);
  g_test_add_func ("/text/c1", test_c1);
  g_test_add_func ("/text/bidi-format", test_bidi_format);
  g_test_add_func ("/text/invalid-utf8", test_invalid_utf8);
  g_test_add_func ("/text/width", test_width);
  g_test_add_func ("/text/fit", test_fit);
  return g_test_run ();
}
