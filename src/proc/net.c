#include "proc/net.h"
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static const char *const proto_names[NET_PROTO_COUNT] = { "tcp", "tcp6", "udp", "udp6", "unix" };

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
	if (out->n == out->cap) {
		size_t nc = out->cap ? out->cap * 2 : 64;
		struct proc_sock *nv = realloc(out->v, nc * sizeof(*nv));
		if (!nv)
			return NULL;
		out->v = nv;
		out->cap = nc;
	}
	struct proc_sock *s = &out->v[out->n];
	memset(s, 0, sizeof(*s));
	return s;
}

static int parse_inet_line(const char *line, bool v6, struct proc_sock *s)
{
	char local[80], peer[80];
	unsigned st;
	unsigned long long ino;

	/* sl local rem st tx:rx tr:when retrnsmt uid timeout inode */
	if (sscanf(line, " %*u: %79s %79s %x %*s %*s %*s %*u %*u %llu", local, peer, &st, &ino) != 4)
		return -EINVAL;
	s->state = (int)st;
	s->ino = ino;
	if (addr_str(local, v6, s->local, sizeof(s->local)) < 0 || addr_str(peer, v6, s->peer, sizeof(s->peer)) < 0)
		return -EINVAL;
	return 0;
}

/* Num RefCount Protocol Flags Type St Inode [Path] */
static int parse_unix_line(const char *line, size_t len, struct proc_sock *s)
{
	unsigned flags, type, st;
	unsigned long long ino;
	int off = 0;

	if (sscanf(line, "%*x: %*x %*x %x %x %x %llu%n", &flags, &type, &st, &ino, &off) != 4)
		return -EINVAL;
	s->listening = (flags & 0x10000) != 0; /* __SO_ACCEPTCON */
	s->unix_type = (int)type;
	s->state = (int)st;
	s->ino = ino;
	const char *p = line + off;
	while ((size_t)(p - line) < len && *p == ' ')
		p++;
	size_t pl = len - (size_t)(p - line);
	if (pl >= sizeof(s->local))
		pl = sizeof(s->local) - 1;
	memcpy(s->local, p, pl);
	s->local[pl] = '\0';
	return 0;
}

int proc_net_parse(const char *buf, size_t len, enum proc_net_proto proto, struct proc_net *out)
{
	const char *p = buf, *end = buf + len;
	bool first = true;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		char line[512];
		size_t ll = (size_t)(le - p);
		if (ll >= sizeof(line))
			ll = sizeof(line) - 1;
		memcpy(line, p, ll);
		line[ll] = '\0';
		p = le + 1;
		if (first) { /* header line */
			first = false;
			continue;
		}
		if (!ll)
			continue;
		struct proc_sock *s = grow(out);
		if (!s)
			return -ENOMEM;
		s->proto = proto;
		int r = proto == NET_UNIX ? parse_unix_line(line, ll, s)
					  : parse_inet_line(line, proto == NET_TCP6 || proto == NET_UDP6, s);
		if (r < 0)
			return r;
		out->n++;
	}
	return 0;
}

static int cmp_ino(const void *a, const void *b)
{
	const struct proc_sock *x = a, *y = b;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

void proc_net_index(struct proc_net *n)
{
	if (n->n)
		qsort(n->v, n->n, sizeof(*n->v), cmp_ino);
}

int proc_net_read(int dirfd, struct proc_net *out)
{
	char *buf = NULL;
	size_t cap = 0;
	int ok = 0, last = 0;

	out->n = 0;
	for (int p = 0; p < NET_PROTO_COUNT; p++) {
		char path[32];
		snprintf(path, sizeof(path), "net/%s", proto_names[p]);
		ssize_t n = read_file_alloc_at(dirfd, path, &buf, &cap);
		out->err[p] = n < 0 ? (int)n : 0;
		if (n < 0) {
			last = (int)n;
			continue;
		}
		if (proc_net_parse(buf, (size_t)n, (enum proc_net_proto)p, out) == 0)
			ok++;
	}
	free(buf);
	proc_net_index(out);
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

void proc_net_free(struct proc_net *n)
{
	free(n->v);
	n->v = NULL;
	n->n = n->cap = 0;
}
