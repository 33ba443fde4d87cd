/* Sockets of a network namespace: /proc/PID/net/{tcp,tcp6,udp,udp6,unix,netlink}
 * (the namespace of that process), indexed by socket inode so the fd pane
 * can resolve "socket:[INODE]" to protocol, endpoints and state. */
#ifndef PS_PROC_NET_H
#define PS_PROC_NET_H

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
};

struct proc_net {
	struct proc_sock *v;
	size_t n, cap;
	int err[NET_PROTO_COUNT]; /* read errors per file (0, -ENOENT when no IPv6...) */
	unsigned kept;            /* proc_fd_read_net calls that kept it unread */
};

/* File name under net/ ("tcp6") and protocol label ("tcp6"). */
const char *proc_net_proto_name(enum proc_net_proto p);
/* Append the sockets of one file's text to out. Returns 0 or -EINVAL/-ENOMEM. */
int proc_net_parse(const char *buf, size_t len, enum proc_net_proto proto, struct proc_net *out);
/* Read the files relative to a /proc/PID dirfd and index them. With want
 * (socket inodes, any order), stop as soon as every one is found: the
 * cheap files first, tcp and tcp6 last (the kernel walks its whole
 * connection hash table for them, milliseconds even when nearly empty). */
int proc_net_read(int dirfd, struct proc_net *out, const unsigned long long *want, size_t nwant);
/* Unix socket peers are not in /proc: ask sock_diag (NETLINK_SOCK_DIAG,
 * UDIAG_SHOW_PEER) and fill peer_ino. Only when the process behind dirfd
 * shares our network namespace (a netlink socket sees its own namespace);
 * returns -EXDEV otherwise, leaving the peers unknown. */
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
