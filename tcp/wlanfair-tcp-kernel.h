/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The few kernel types the BPF programs touch, instead of a generated
 * vmlinux.h: preserve_access_index makes libbpf relocate every field by
 * name against the running kernel's BTF (CO-RE), so sizes and layouts here
 * need not match any one kernel. */
#pragma once

#include <linux/types.h>

#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)

struct sock {
  __u32 sk_pacing_status;
};

struct inet_connection_sock {
  __u8  icsk_ca_state : 5;
  __u64 icsk_ca_priv[13];
};

struct minmax_sample {
  __u32 t;
  __u32 v;
};

struct minmax {
  struct minmax_sample s[3];
};

struct tcp_sock {
  __u32 srtt_us;         /* smoothed RTT << 3 */
  struct minmax rtt_min; /* windowed minimum, s[0].v; ~0U while unknown */
  __u32 snd_una;
  __u32 snd_nxt;
  __u32 snd_cwnd;
  __u32 snd_ssthresh;
  __u32 mss_cache;
  __u32 prior_cwnd;
  __u32 prior_ssthresh;
};

struct ack_sample {
  __u32 pkts_acked;
  __s32 rtt_us;
  __u32 in_flight;
};

#pragma clang attribute pop

enum tcp_ca_event {
  CA_EVENT_TX_START = 0,
};

enum tcp_ca_state {
  TCP_CA_Open = 0,
  TCP_CA_Disorder = 1,
  TCP_CA_CWR = 2,
  TCP_CA_Recovery = 3,
  TCP_CA_Loss = 4,
};

/* Members are matched by name with the kernel's tcp_congestion_ops. */
struct tcp_congestion_ops {
  __u32 (*ssthresh) (struct sock *sk);
  void (*cong_avoid) (struct sock *sk, __u32 ack, __u32 acked);
  void (*set_state) (struct sock *sk, __u8 new_state);
  void (*cwnd_event) (struct sock *sk, enum tcp_ca_event ev);
  void (*in_ack_event) (struct sock *sk, __u32 flags);
  void (*pkts_acked) (struct sock *sk, const struct ack_sample *sample);
  __u32 (*undo_cwnd) (struct sock *sk);
  char name[16];
  __u32 flags;
  void (*init) (struct sock *sk);
  void (*release) (struct sock *sk);
};

#define ICSK_CA_PRIV_SIZE 104

static inline struct inet_connection_sock *
inet_csk (const struct sock *sk)
{
  return (struct inet_connection_sock *) sk;
}

static inline struct tcp_sock *
tcp_sk (const struct sock *sk)
{
  return (struct tcp_sock *) sk;
}
