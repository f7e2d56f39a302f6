/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A wire with a fixed delay and a rate, for tests on a kernel without
 * netem or fq: copies every Ethernet frame from interface A to B and back
 * (AF_PACKET), each after DELAY ms, serialised at RATE bit/s (a FIFO of
 * at most QUEUE frames per direction, 4096 by default and at most; beyond
 * it frames are dropped: a tail-drop buffer):
 *
 *   wf-delay IF_A IF_B DELAY_MS RATE_BPS [QUEUE]
 *
 * Run it in a namespace where A and B have no addresses. Frames larger
 * than 2048 bytes (GSO) are dropped: turn off tso/gso/gro on the way. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SLOTS 4096
#define FRAME 2048

typedef struct {
  int      fd;          /* receives here ... */
  int      out;         /* ... sends there */
  uint64_t due[SLOTS];  /* ns */
  uint16_t len[SLOTS];
  uint8_t  buf[SLOTS][FRAME];
  unsigned head, n;
  uint64_t free_at;     /* the wire is busy until then */
  uint64_t dropped;
} Dir;

static volatile sig_atomic_t stop;

static uint64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

static int
open_if (const char *name)
{
  struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons (ETH_P_ALL) };
  struct packet_mreq mr = { .mr_type = PACKET_MR_PROMISC };
  int one = 1, fd = socket (AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons (ETH_P_ALL));

  if (fd < 0)
    return -1;
  sll.sll_ifindex = (int) if_nametoindex (name);
  mr.mr_ifindex = sll.sll_ifindex;
  if (!sll.sll_ifindex || bind (fd, (struct sockaddr *) &sll, sizeof sll) < 0 ||
      setsockopt (fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof mr) < 0 ||
      setsockopt (fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one) < 0)
    {
      close (fd);
      return -1;
    }
  return fd;
}

static void
on_signal (int sig)
{
  (void) sig;
  stop = 1;
}

int
main (int argc, char **argv)
{
  static Dir dirs[2];
  uint64_t delay, ns_per_byte_x1000;
  unsigned long limit = SLOTS;
  double rate;

  if ((argc != 5 && argc != 6) || (delay = strtoull (argv[3], NULL, 10) * 1000000ull, 0) ||
      !((rate = strtod (argv[4], NULL)) > 0) ||
      (argc == 6 && ((limit = strtoul (argv[5], NULL, 10)) < 1 || limit > SLOTS)))
    {
      fprintf (stderr, "usage: wf-delay IF_A IF_B DELAY_MS RATE_BPS [QUEUE (1..%d frames)]\n",
               SLOTS);
      return 2;
    }
  ns_per_byte_x1000 = (uint64_t) (8e12 / rate);
  dirs[0].fd = dirs[1].out = open_if (argv[1]);
  dirs[1].fd = dirs[0].out = open_if (argv[2]);
  if (dirs[0].fd < 0 || dirs[1].fd < 0)
    {
      fprintf (stderr, "wf-delay: %s/%s: %s\n", argv[1], argv[2], strerror (errno));
      return 1;
    }
  signal (SIGTERM, on_signal);
  signal (SIGINT, on_signal);
  printf ("ready\n");
  fflush (stdout);

  while (!stop)
    {
      struct pollfd p[2] = { { dirs[0].fd, POLLIN, 0 }, { dirs[1].fd, POLLIN, 0 } };
      uint64_t t = now_ns (), next = UINT64_MAX;
      int timeout;

      /* Send what is due. */
      for (int d = 0; d < 2; d++)
        {
          Dir *q = &dirs[d];

          while (q->n && q->due[q->head] <= t)
            {
              if (send (q->out, q->buf[q->head], q->len[q->head], 0) < 0 && errno != EAGAIN &&
                  errno != ENOBUFS)
                q->dropped++;
              q->head = (q->head + 1) % SLOTS;
              q->n--;
            }
          if (q->n && q->due[q->head] < next)
            next = q->due[q->head];
        }
      timeout = next == UINT64_MAX ? 200 : (int) ((next - t + 999999) / 1000000);
      if (poll (p, 2, timeout) < 0 && errno != EINTR)
        break;
      t = now_ns ();
      for (int d = 0; d < 2; d++)
        {
          Dir *q = &dirs[d];

          for (;;)
            {
              unsigned slot = (q->head + q->n) % SLOTS;
              uint8_t scratch[FRAME];
              uint8_t *b = q->n < limit ? q->buf[slot] : scratch;
              ssize_t len = recv (q->fd, b, FRAME, MSG_TRUNC);
              uint64_t start;

              if (len < 0)
                break;
              if (len > FRAME || q->n >= limit)
                {
                  q->dropped++;
                  continue;
                }
              /* Serialised at the rate, then the propagation delay. */
              start = q->free_at > t ? q->free_at : t;
              q->free_at = start + (uint64_t) len * ns_per_byte_x1000 / 1000;
              q->due[slot] = q->free_at + delay;
              q->len[slot] = (uint16_t) len;
              q->n++;
            }
        }
    }
  fprintf (stderr, "wf-delay: dropped %llu / %llu\n", (unsigned long long) dirs[0].dropped,
           (unsigned long long) dirs[1].dropped);
  return 0;
}
