/* Sockets from the kernel's binary interface: NETLINK_SOCK_DIAG dumps (as
 * ss does) for tcp, udp, unix and netlink. Unlike the /proc/net text files,
 * every field has a length, so no name a process binds can hide or forge
 * another socket's entry. */
#include "proc/net.h"
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/netlink_diag.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define TCP_ESTABLISHED_ 1
#define TCP_SYN_SENT_ 2
#define TCP_LISTEN_ 10

static struct proc_sock *add(struct proc_net *out, enum proc_net_proto proto, unsigned long long ino)
{
	if (array_reserve((void **)&out->v, &out->cap, out->n, sizeof(*out->v), 64) < 0)
		return NULL;
	struct proc_sock *s = &out->v[out->n++];
	memset(s, 0, sizeof(*s));
	s->peer_fd = -1;
	s->proto = proto;
	s->ino = ino;
	return s;
}

static void inet_endpoint(int family, const uint32_t addr[4], uint16_t port_be, char *out, size_t size)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	inet_ntop(family, addr, ip, sizeof(ip));
	if (family == AF_INET6)
		snprintf(out, size, "[%s]:%u", ip, ntohs(port_be));
	else
		snprintf(out, size, "%s:%u", ip, ntohs(port_be));
}

static int inet_msg(const unsigned char *p, size_t len, enum proc_net_proto proto, struct proc_net *out)
{
	struct inet_diag_msg m;
	bool v6 = proto == NET_TCP6 || proto == NET_UDP6;

	if (len < sizeof(m))
		return -EINVAL;
	memcpy(&m, p, sizeof(m));
	if (m.idiag_family != (v6 ? AF_INET6 : AF_INET))
		return -EINVAL;
	if (!m.idiag_inode) /* TIME_WAIT and request sockets: no fd has them */
		return 0;
	struct proc_sock *s = add(out, proto, m.idiag_inode);
	if (!s)
		return -ENOMEM;
	s->state = m.idiag_state;
	inet_endpoint(m.idiag_family, m.id.idiag_src, m.id.idiag_sport, s->local, sizeof(s->local));
	inet_endpoint(m.idiag_family, m.id.idiag_dst, m.id.idiag_dport, s->peer, sizeof(s->peer));
	return 0;
}

/* The name as /proc/net/unix prints it: a path up to its NUL; an abstract
 * name as '@' and its bytes, each NUL shown as '@'. Raw otherwise (escaped
 * when shown). */
static void unix_name(const unsigned char *name, size_t len, char *out, size_t size)
{
	size_t k = 0;

	if (!len || !size)
		return;
	if (name[0]) {
		while (k < len && k + 1 < size && name[k]) {
			out[k] = (char)name[k];
			k++;
		}
	} else {
		out[k++] = '@';
		for (size_t i = 1; i < len && k + 1 < size; i++)
			out[k++] = name[i] ? (char)name[i] : '@';
	}
	out[k] = '\0';
}

static int unix_msg(const unsigned char *p, size_t len, struct proc_net *out)
{
	struct unix_diag_msg m;

	if (len < sizeof(m))
		return -EINVAL;
	memcpy(&m, p, sizeof(m));
	if (m.udiag_family != AF_UNIX)
		return -EINVAL;
	struct proc_sock *s = add(out, NET_UNIX, m.udiag_ino);
	if (!s)
		return -ENOMEM;
	s->unix_type = m.udiag_type;
	/* sock_diag gives the sk_state (TCP_*): the SS_* state /proc/net/unix
	 * shows, and the listening flag. */
	s->listening = m.udiag_state == TCP_LISTEN_;
	s->state = m.udiag_state == TCP_ESTABLISHED_ ? 3 : m.udiag_state == TCP_SYN_SENT_ ? 2 : 1;
	for (size_t off = NLMSG_ALIGN(sizeof(m)); off + sizeof(struct rtattr) <= len;) {
		struct rtattr a;
		memcpy(&a, p + off, sizeof(a));
		if (a.rta_len < sizeof(a) || a.rta_len > len - off)
			return -EINVAL;
		const unsigned char *data = p + off + RTA_LENGTH(0);
		size_t dlen = a.rta_len - RTA_LENGTH(0);
		if (a.rta_type == UNIX_DIAG_NAME) {
			unix_name(data, dlen, s->local, sizeof(s->local));
		} else if (a.rta_type == UNIX_DIAG_PEER && dlen >= sizeof(uint32_t)) {
			uint32_t peer;
			memcpy(&peer, data, sizeof(peer));
			s->peer_ino = peer;
		}
		off += RTA_ALIGN(a.rta_len);
	}
	return 0;
}

static int netlink_msg(const unsigned char *p, size_t len, struct proc_net *out)
{
	struct netlink_diag_msg m;

	if (len < sizeof(m))
		return -EINVAL;
	memcpy(&m, p, sizeof(m));
	if (m.ndiag_family != AF_NETLINK)
		return -EINVAL;
	struct proc_sock *s = add(out, NET_NETLINK, m.ndiag_ino);
	if (!s)
		return -ENOMEM;
	s->netlink_family = m.ndiag_protocol;
	snprintf(s->local, sizeof(s->local), "portid %u", m.ndiag_portid);
	return 0;
}

int proc_net_diag_parse(const void *buf, size_t len, enum proc_net_proto proto, struct proc_net *out)
{
	const unsigned char *p = buf;

	while (len >= sizeof(struct nlmsghdr)) {
		struct nlmsghdr h;
		int r = 0;

		memcpy(&h, p, sizeof(h));
		if (h.nlmsg_len < sizeof(h) || h.nlmsg_len > len)
			return -EINVAL;
		const unsigned char *data = p + NLMSG_HDRLEN;
		size_t dlen = h.nlmsg_len > NLMSG_HDRLEN ? h.nlmsg_len - NLMSG_HDRLEN : 0;
		if (h.nlmsg_type == NLMSG_DONE)
			return 1;
		if (h.nlmsg_type == NLMSG_ERROR) {
			int err = -EIO;
			if (dlen >= sizeof(int))
				memcpy(&err, data, sizeof(err));
			return err < 0 && err > -4096 ? err : -EIO;
		}
		if (h.nlmsg_type == SOCK_DIAG_BY_FAMILY) {
			switch (proto) {
			case NET_UNIX:
				r = unix_msg(data, dlen, out);
				break;
			case NET_NETLINK:
				r = netlink_msg(data, dlen, out);
				break;
			default:
				r = inet_msg(data, dlen, proto, out);
				break;
			}
		}
		if (r < 0)
			return r;
		size_t step = NLMSG_ALIGN(h.nlmsg_len);
		if (step >= len)
			break;
		p += step;
		len -= step;
	}
	return 0;
}

/* ---- I/O: one dump per protocol ---- */

static size_t request(enum proc_net_proto proto, unsigned char *buf)
{
	struct nlmsghdr h = { .nlmsg_type = SOCK_DIAG_BY_FAMILY, .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 };
	size_t body;

	switch (proto) {
	case NET_UNIX: {
		struct unix_diag_req r = { .sdiag_family = AF_UNIX, .udiag_states = ~0u,
					   .udiag_show = UDIAG_SHOW_NAME | UDIAG_SHOW_PEER };
		memcpy(buf + NLMSG_HDRLEN, &r, body = sizeof(r));
		break;
	}
	case NET_NETLINK: {
		struct netlink_diag_req r = { .sdiag_family = AF_NETLINK, .sdiag_protocol = NDIAG_PROTO_ALL };
		memcpy(buf + NLMSG_HDRLEN, &r, body = sizeof(r));
		break;
	}
	default: {
		bool v6 = proto == NET_TCP6 || proto == NET_UDP6;
		bool tcp = proto == NET_TCP || proto == NET_TCP6;
		struct inet_diag_req_v2 r = { .sdiag_family = v6 ? AF_INET6 : AF_INET,
					      .sdiag_protocol = tcp ? IPPROTO_TCP : IPPROTO_UDP, .idiag_states = ~0u };
		memcpy(buf + NLMSG_HDRLEN, &r, body = sizeof(r));
		break;
	}
	}
	h.nlmsg_len = (uint32_t)NLMSG_LENGTH(body);
	memcpy(buf, &h, sizeof(h));
	return h.nlmsg_len;
}

int proc_net_diag_dump(int fd, enum proc_net_proto proto, struct proc_net *out)
{
	enum { BUF = 65536 }; /* a dump message never exceeds it */
	long *buf = malloc(BUF);
	unsigned char req[128];
	size_t n0 = out->n;
	size_t rl = request(proto, req);
	int r = 0;

	if (!buf)
		return -ENOMEM;
	if (send(fd, req, rl, 0) < 0) {
		free(buf);
		return -errno;
	}
	while (r == 0) {
		ssize_t len = recv(fd, buf, BUF, MSG_TRUNC);
		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0)
			r = -errno;
		else if (len == 0 || len > BUF)
			r = -EMSGSIZE;
		else
			r = proc_net_diag_parse(buf, (size_t)len, proto, out);
	}
	if (r < 0) {
		/* All or nothing: the caller falls back to the text file. */
		out->n = n0;
		/* A refused dump may have left the rest unread: drain it. */
		while (recv(fd, buf, BUF, MSG_DONTWAIT) > 0)
			;
	}
	free(buf);
	return r < 0 ? r : 0;
}

/* A sock_diag socket sees the network namespace it was created in: in
 * another namespace, a helper thread enters it, creates the socket and
 * ends (the socket keeps that namespace; our threads keep ours). */
struct ns_socket {
	int nsfd, fd;
};

static void *socket_in_ns(void *arg)
{
	struct ns_socket *a = arg;

	if (setns(a->nsfd, CLONE_NEWNET) < 0)
		a->fd = -errno;
	else if ((a->fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG)) < 0)
		a->fd = -errno;
	return NULL;
}

int proc_net_diag_open(int dirfd)
{
	struct stat ours, theirs;
	struct ns_socket a = { .fd = -EPERM };
	pthread_t th;
	int fd;

	if (stat("/proc/self/ns/net", &ours) < 0 || fstatat(dirfd, "ns/net", &theirs, 0) < 0)
		return -errno;
	if (ours.st_ino == theirs.st_ino && ours.st_dev == theirs.st_dev) {
		fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
		return fd < 0 ? -errno : fd;
	}
	a.nsfd = openat(dirfd, "ns/net", O_RDONLY | O_CLOEXEC);
	if (a.nsfd < 0)
		return -errno;
	if (pthread_create(&th, NULL, socket_in_ns, &a) != 0)
		a.fd = -EAGAIN;
	else
		pthread_join(th, NULL);
	close(a.nsfd);
	return a.fd;
}
