/* Sockets of a network namespace: /proc/PID/net/{tcp,tcp6,udp,udp6,unix,netlink}
 * (the namespace of that process), indexed by socket inode so the fd pane
 * can resolve "socket:[INODE]" to protocol, endpoints and state. */
#ifndef PS_PROC_NET_H
#define PS_PROC_NET_H

#include "reads.h"

#include <stdbool.h>
#include <stddef.h>

enum proc_net_proto { NET_TCP, NET_TCP6, NET_UDP, NET_UDP6, NET_UNIX, NET_NETLINK, NET_PROTO_COUNT };

struct proc_sock {
	unsigned long long ino;
	enum proc_net_proto proto;
	int state;            /* kernel TCP_* state (also used by udp); unix: SS_* */
	int unix_type;        /* SOCK_STREAM / SOCK_DGRAM / SOCK_SEQPACKET (unix) */
	int listening;        /* unix: __SO_ACCEPTCON in Flags */
	int netlink_family;   /* netlink: NETLINK_ROUTE, ... */
	unsigned long long peer_ino; /* unix: the other end (sock_diag), 0 unknown */
	int peer_fd;          /* unix: the other end's fd in the same process, -1 */
	char local[112];      /* "127.0.0.1:8080", "[::1]:53", unix path or "" */
	char peer[64];        /* remote endpoint; "" for unix and unconnected */
	bool ambiguous;       /* text files list this inode twice: nothing known */
};

struct proc_net {
	struct proc_sock *v;
	size_t n, cap;
	int err[NET_PROTO_COUNT]; /* read errors per file (0, -ENOENT when no IPv6...) */
	bool diag[NET_PROTO_COUNT]; /* read through sock_diag (else the text file) */
	unsigned ambiguous;       /* text fallback: entries dropped for a shared inode */
	unsigned kept;            /* proc_fd_read_net calls that kept it unread */
};

/* File name under net/ ("tcp6") and protocol label ("tcp6"). */
const char *proc_net_proto_name(enum proc_net_proto p);
/* Append the sockets of one file's text to out. A line that does not parse
 * is skipped (a unix path may hold a newline: what follows it is no line of
 * its own). Returns 0, -EINVAL when no line parsed, or -ENOMEM. */
int proc_net_parse(const char *buf, size_t len, enum proc_net_proto proto, struct proc_net *out);
/* Append the sockets of one NETLINK_SOCK_DIAG dump reply (netlink messages
 * as recv() returned them) to out. Returns 1 at the end of the dump
 * (NLMSG_DONE), 0 when more messages follow, or -errno (the kernel's error,
 * or -EINVAL for a malformed message). Pure: the fuzzers call it. */
int proc_net_diag_parse(const void *buf, size_t len, enum proc_net_proto proto, struct proc_net *out);
/* A NETLINK_SOCK_DIAG socket in the network namespace of the process behind
 * dirfd (entered by a helper thread when it is not ours). fd or -errno. */
int proc_net_diag_open(int dirfd);
/* Dump one protocol's sockets through it into out; on error out is as it
 * was. 0 or -errno. */
int proc_net_diag_dump(int fd, enum proc_net_proto proto, struct proc_net *out);
/* The sockets of the network namespace of the process behind dirfd, indexed:
 * through sock_diag (as ss does), each protocol the kernel cannot dump that
 * way from the /proc/PID/net text file instead. With want (socket inodes,
 * any order), stop as soon as every one is found: the cheap protocols
 * first, tcp and tcp6 last (the kernel walks its whole connection hash
 * table for them). When a text file was used, every protocol is read and an
 * inode listed twice (a name forged to look like a line) resolves to
 * nothing rather than to the forgery. */
PS_READS int proc_net_read(int dirfd, struct proc_net *out, const unsigned long long *want, size_t nwant);
/* Unix socket peers (peer_ino): already there when unix sockets came from
 * sock_diag; otherwise asked from sock_diag (UDIAG_SHOW_PEER) when the
 * process shares our network namespace, else -EXDEV (peers unknown). */
int proc_net_unix_peers(int dirfd, struct proc_net *n);
/* Sort by inode (done by proc_net_read; call after proc_net_parse). */
void proc_net_index(struct proc_net *n);
const struct proc_sock *proc_net_find(const struct proc_net *n, unsigned long long ino);
/* "ESTABLISHED", "LISTEN", "UNCONN" (udp), "CONNECTED" (unix)... */
const char *proc_sock_state(const struct proc_sock *s);
/* "stream", "dgram", "seqpacket" for unix sockets. */
const char *proc_sock_unix_type(const struct proc_sock *s);
/* "route", "audit", ... for a netlink socket. */
const char *proc_netlink_family(const struct proc_sock *s);
void proc_net_free(struct proc_net *n);

#endif
