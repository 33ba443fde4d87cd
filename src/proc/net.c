#include "proc/net.h"
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const proto_names[NET_PROTO_COUNT] = { "tcp", "tcp6", "udp", "udp6", "unix", "netlink" };

const char *proc_net_proto_name(enum proc_net_proto p)
{
	return (unsigned)p < NET_PROTO_COUNT ? proto_names[p] : "?";
}

/* "0100007F:1F90" (IPv4) or 32 hex digits ":PORT" (IPv6, four host-order
 * 32-bit words) to "127.0.0.1:8080" / "[::1]:8080". */
static int addr_str(const char *hex, bool v6, char *out, size_t size)
{
	const char *colon = strchr(hex, ':');
	char ip[INET6_ADDRSTRLEN];
	unsigned port;

	if (!colon || sscanf(colon + 1, "%x", &port) != 1)
		return -EINVAL;
	if (!v6) {
		uint32_t a;
		if (colon - hex != 8 || sscanf(hex, "%8x", &a) != 1)
			return -EINVAL;
		struct in_addr in = { .s_addr = a }; /* already network order as stored */
		inet_ntop(AF_INET, &in, ip, sizeof(ip));
		snprintf(out, size, "%s:%u", ip, port);
	} else {
		struct in6_addr in6;
		if (colon - hex != 32)
			return -EINVAL;
		for (int w = 0; w < 4; w++) {
			char word[9];
			uint32_t v;
			memcpy(word, hex + 8 * w, 8);
			word[8] = '\0';
			if (sscanf(word, "%8x", &v) != 1)
				return -EINVAL;
			memcpy(&in6.s6_addr[4 * w], &v, 4);
		}
		inet_ntop(AF_INET6, &in6, ip, sizeof(ip));
		snprintf(out, size, "[%s]:%u", ip, port);
	}
	return 0;
}

static struct proc_sock *grow(struct proc_net *out)
{
	if (array_reserve((void **)&out->v, &out->cap, out->n, sizeof(*out->v), 64) < 0)
		return NULL;
	struct proc_sock *s = &out->v[out->n];
	memset(s, 0, sizeof(*s));
	s->peer_fd = -1;
	return s;
}

/* Split a line into whitespace-separated tokens (no copy). */
#define MAX_TOK 12
struct toks {
	const char *p[MAX_TOK];
	size_t len[MAX_TOK];
	int n;
	const char *rest[MAX_TOK]; /* where token i starts, for "the rest of the line" */
};

static void split(const char *p, const char *end, struct toks *t)
{
	t->n = 0;
	while (p < end && t->n < MAX_TOK) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p >= end)
			break;
		t->p[t->n] = p;
		t->rest[t->n] = p;
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		t->len[t->n] = (size_t)(p - t->p[t->n]);
		t->n++;
	}
}

static bool num(const char *p, size_t len, int base, unsigned long long *out)
{
	unsigned long long v = 0;
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = p[i];
		int d = c >= '0' && c <= '9' ? c - '0' : base == 16 && c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			base == 16 && c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return false;
		v = v * (unsigned)base + (unsigned)d;
	}
	*out = v;
	return true;
}

static int addr_tok(const char *p, size_t len, bool v6, char *out, size_t size)
{
	char tmp[80];
	if (len >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, p, len);
	tmp[len] = '\0';
	return addr_str(tmp, v6, out, size);
}

/* sl local rem st tx:rx tr:when retrnsmt uid timeout inode ... */
static int parse_inet_line(const char *line, const char *le, bool v6, struct proc_sock *s)
{
	struct toks t;
	unsigned long long st, ino;

	split(line, le, &t);
	if (t.n < 10 || !num(t.p[3], t.len[3], 16, &st) || !num(t.p[9], t.len[9], 10, &ino))
		return -EINVAL;
	s->state = (int)st;
	s->ino = ino;
	if (addr_tok(t.p[1], t.len[1], v6, s->local, sizeof(s->local)) < 0 ||
	    addr_tok(t.p[2], t.len[2], v6, s->peer, sizeof(s->peer)) < 0)
		return -EINVAL;
	return 0;
}

/* Num: RefCount Protocol Flags Type St Inode [Path] */
static int parse_unix_line(const char *line, const char *le, struct proc_sock *s)
{
	struct toks t;
	unsigned long long flags, type, st, ino;

	split(line, le, &t);
	if (t.n < 7 || !num(t.p[3], t.len[3], 16, &flags) || !num(t.p[4], t.len[4], 16, &type) ||
	    !num(t.p[5], t.len[5], 16, &st) || !num(t.p[6], t.len[6], 10, &ino))
		return -EINVAL;
	s->listening = (flags & 0x10000) != 0; /* __SO_ACCEPTCON */
	s->unix_type = (int)type;
	s->state = (int)st;
	s->ino = ino;
	if (t.n > 7) { /* the path runs to the end of the line (may hold spaces) */
		size_t pl = (size_t)(le - t.rest[7]);
		if (pl >= sizeof(s->local))
			pl = sizeof(s->local) - 1;
		memcpy(s->local, t.rest[7], pl);
		s->local[pl] = '\0';
	}
	return 0;
}

/* sk Eth Pid Groups Rmem Wmem Dump Locks Drops Inode */
static int parse_netlink_line(const char *line, const char *le, struct proc_sock *s)
{
	struct toks t;
	unsigned long long fam, pid, ino;

	split(line, le, &t);
	if (t.n < 10 || !num(t.p[1], t.len[1], 10, &fam) || !num(t.p[2], t.len[2], 10, &pid) ||
	    !num(t.p[9], t.len[9], 10, &ino))
		return -EINVAL;
	s->netlink_family = (int)fam;
	s->ino = ino;
	snprintf(s->local, sizeof(s->local), "portid %llu", pid);
	return 0;
}

int proc_net_parse(const char *buf, size_t len, enum proc_net_proto proto, struct proc_net *out)
{
	const char *p = buf, *end = buf + len;
	bool first = true;
	size_t lines = 0, good = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *line = p;
		p = le + 1;
		if (first) { /* header line */
			first = false;
			continue;
		}
		if (le == line)
			continue;
		struct proc_sock *s = grow(out);
		if (!s)
			return -ENOMEM;
		s->proto = proto;
		int r = proto == NET_UNIX      ? parse_unix_line(line, le, s)
			: proto == NET_NETLINK ? parse_netlink_line(line, le, s)
					       : parse_inet_line(line, le, proto == NET_TCP6 || proto == NET_UDP6, s);
		lines++;
		/* A bad line is skipped, never the lines after it. */
		if (r == 0) {
			out->n++;
			good++;
		}
	}
	return lines && !good ? -EINVAL : 0;
}

int proc_net_unix_peers(int dirfd, struct proc_net *n)
{
	struct stat ours, theirs;
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req r;
	} req = {
		.nlh = { .nlmsg_len = sizeof(req), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			 .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		.r = { .sdiag_family = AF_UNIX, .udiag_states = ~0u, .udiag_show = UDIAG_SHOW_PEER },
	};
	long buf[4096]; /* 32 KiB, aligned for nlmsghdr */
	int fd, err = 0;
	bool done = false;

	if (n->diag[NET_UNIX])
		return 0;
	if (stat("/proc/self/ns/net", &ours) < 0 || fstatat(dirfd, "ns/net", &theirs, 0) < 0)
		return -errno;
	if (ours.st_ino != theirs.st_ino || ours.st_dev != theirs.st_dev)
		return -EXDEV;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	if (send(fd, &req, sizeof(req), 0) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	while (!done) {
		ssize_t len = recv(fd, buf, sizeof(buf), 0);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (len == 0)
			break;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_DONE) {
				done = true;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);
				err = e->error < 0 ? e->error : -EIO;
				done = true;
				break;
			}
			if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY)
				continue;
			const struct unix_diag_msg *m = NLMSG_DATA(h);
			struct proc_sock *s = (struct proc_sock *)proc_net_find(n, m->udiag_ino);
			if (!s)
				continue;
			int alen = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
			for (struct rtattr *a = (struct rtattr *)(m + 1); RTA_OK(a, alen); a = RTA_NEXT(a, alen))
				if (a->rta_type == UNIX_DIAG_PEER && RTA_PAYLOAD(a) >= sizeof(uint32_t))
					s->peer_ino = *(const uint32_t *)RTA_DATA(a);
		}
	}
	close(fd);
	return err;
}

static int cmp_ino(const void *a, const void *b)
{
	const struct proc_sock *x = a, *y = b;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

void proc_net_index(struct proc_net *n)
{
	if (n->n)
		sort_array(n->v, n->n, sizeof(*n->v), cmp_ino);
}

static bool all_found(const struct proc_net *n, const unsigned long long *want, size_t nwant)
{
	for (size_t i = 0; i < nwant; i++)
		if (!proc_net_find(n, want[i]))
			return false;
	return true;
}

/* Sockets have unique inodes: one listed twice in the text files was forged
 * by a name shaped like a line. Neither entry can be trusted: one entry
 * stays, marked ambiguous, with nothing from either line. */
static void mark_shared_inodes(struct proc_net *n)
{
	size_t k = 0;

	for (size_t i = 0; i < n->n;) {
		size_t j = i + 1;
		while (j < n->n && n->v[j].ino == n->v[i].ino)
			j++;
		if (!n->v[i].ino) { /* TIME_WAIT and the like: no fd has them */
			i = j;
			continue;
		}
		n->v[k] = n->v[i];
		if (j > i + 1) {
			struct proc_sock *s = &n->v[k];
			enum proc_net_proto proto = s->proto;
			unsigned long long ino = s->ino;
			memset(s, 0, sizeof(*s));
			s->ino = ino;
			s->proto = proto;
			s->peer_fd = -1;
			s->ambiguous = true;
			n->ambiguous++;
		}
		k++;
		i = j;
	}
	n->n = k;
}

static int read_text(int dirfd, enum proc_net_proto p, char **buf, size_t *cap, struct proc_net *out)
{
	char path[32];
	ssize_t n;

	snprintf(path, sizeof(path), "net/%s", proto_names[p]);
	n = read_file_alloc_at(dirfd, path, buf, cap);
	if (n < 0)
		return (int)n;
	return proc_net_parse(*buf, (size_t)n, p, out);
}

int proc_net_read(int dirfd, struct proc_net *out, const unsigned long long *want, size_t nwant)
{
	static const enum proc_net_proto order[] = { NET_UDP, NET_UDP6, NET_NETLINK, NET_UNIX, NET_TCP6, NET_TCP };
	char *buf = NULL;
	size_t cap = 0;
	/* PSCOPE_NO_SOCK_DIAG=1: the text files only (tests, odd kernels). */
	const char *nodiag = getenv("PSCOPE_NO_SOCK_DIAG");
	int ok = 0, last = 0, fd = nodiag && *nodiag == '1' ? -ENOSYS : proc_net_diag_open(dirfd);
	bool text = false;

	out->n = 0;
	out->ambiguous = 0;
	for (int p = 0; p < NET_PROTO_COUNT; p++) {
		out->err[p] = -EAGAIN; /* not read */
		out->diag[p] = false;
	}
	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		enum proc_net_proto p = order[i];
		int r = fd >= 0 ? proc_net_diag_dump(fd, p, out) : fd;

		out->diag[p] = r == 0;
		if (r < 0) {
			r = read_text(dirfd, p, &buf, &cap, out);
			text = true;
		}
		out->err[p] = r;
		if (r < 0) {
			last = r;
			continue;
		}
		ok++;
		proc_net_index(out);
		/* Only what sock_diag said is final: a forged text line is
		 * caught when the real one is read too. */
		if (want && !text && all_found(out, want, nwant))
			break;
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	if (text)
		mark_shared_inodes(out);
	return ok ? 0 : last;
}

const struct proc_sock *proc_net_find(const struct proc_net *n, unsigned long long ino)
{
	size_t lo = 0, hi = n->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (n->v[mid].ino < ino)
			lo = mid + 1;
		else if (n->v[mid].ino > ino)
			hi = mid;
		else
			return &n->v[mid];
	}
	return NULL;
}

const char *proc_sock_state(const struct proc_sock *s)
{
	static const char *const tcp[] = {
		"?", "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2", "TIME_WAIT",
		"CLOSE", "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING", "NEW_SYN_RECV",
	};
	static const char *const unx[] = { "FREE", "UNCONNECTED", "CONNECTING", "CONNECTED", "DISCONNECTING" };

	switch (s->proto) {
	case NET_NETLINK:
		return "";
	case NET_UNIX:
		if (s->listening)
			return "LISTEN";
		return (unsigned)s->state < ARRAY_SIZE(unx) ? unx[s->state] : "?";
	case NET_UDP:
	case NET_UDP6:
		return s->state == 1 ? "ESTABLISHED" : s->state == 7 ? "UNCONN" : "?";
	default:
		return (unsigned)s->state < ARRAY_SIZE(tcp) ? tcp[s->state] : "?";
	}
}

const char *proc_sock_unix_type(const struct proc_sock *s)
{
	switch (s->unix_type) {
	case SOCK_STREAM: return "stream";
	case SOCK_DGRAM: return "dgram";
	case SOCK_SEQPACKET: return "seqpacket";
	default: return "?";
	}
}

const char *proc_netlink_family(const struct proc_sock *s)
{
	static const char *const fam[] = {
		[0] = "route", [2] = "usersock", [4] = "sock_diag", [5] = "nflog", [6] = "xfrm",
		[7] = "selinux", [8] = "iscsi", [9] = "audit", [10] = "fib_lookup", [11] = "connector",
		[12] = "netfilter", [15] = "kobject_uevent", [16] = "generic", [18] = "scsitransport",
		[19] = "ecryptfs", [20] = "rdma", [21] = "crypto", [22] = "smc",
	};
	if ((unsigned)s->netlink_family < ARRAY_SIZE(fam) && fam[s->netlink_family])
		return fam[s->netlink_family];
	return "?";
}

void proc_net_free(struct proc_net *n)
{
	free(n->v);
	n->v = NULL;
	n->n = n->cap = 0;
}
