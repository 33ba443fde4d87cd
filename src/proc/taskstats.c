#include "proc/taskstats.h"
#include "util.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The attributes of a genetlink reply: its first message's, after the
 * genlmsghdr. *err gets a NLMSG_ERROR's code. */
static const unsigned char *genl_payload(const void *buf, size_t len, size_t *plen, int *err)
{
	const struct nlmsghdr *nh = buf;

	*err = 0;
	if (len < sizeof(*nh) || nh->nlmsg_len < sizeof(*nh) || nh->nlmsg_len > len)
		return NULL;
	if (nh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *me = NLMSG_DATA(nh);
		if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*me)))
			return NULL;
		*err = me->error < 0 ? me->error : -EPROTO;
		return NULL;
	}
	if (nh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return NULL;
	*plen = nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	return (const unsigned char *)NLMSG_DATA(nh) + GENL_HDRLEN;
}

/* The next attribute of [*p, end): 0 and its type/data/length, or -1. */
static int next_attr(const unsigned char **p, const unsigned char *end, uint16_t *type, const unsigned char **data,
		     size_t *dlen)
{
	struct nlattr a;

	if ((size_t)(end - *p) < sizeof(a))
		return -1;
	memcpy(&a, *p, sizeof(a));
	if (a.nla_len < sizeof(a) || a.nla_len > (size_t)(end - *p))
		return -1;
	*type = a.nla_type & NLA_TYPE_MASK;
	*data = *p + NLA_HDRLEN;
	*dlen = a.nla_len - NLA_HDRLEN;
	size_t step = NLA_ALIGN(a.nla_len);
	*p = step > (size_t)(end - *p) ? end : *p + step;
	return 0;
}

#define TS_FIELD(f) offsetof(struct taskstats, f)
/* v14 (Linux 6.10): irq_count, irq_delay_total after wpcopy_delay_total. */
#define TS_IRQ_COUNT (TS_FIELD(wpcopy_delay_total) + 8)

static uint64_t u64_at(const unsigned char *d, size_t len, size_t off)
{
	uint64_t v = 0;
	if (off + sizeof(v) <= len)
		memcpy(&v, d + off, sizeof(v));
	return v;
}

static void stats_of(const unsigned char *d, size_t len, struct proc_taskstats *o)
{
	uint16_t version = 0;

	if (len >= sizeof(version))
		memcpy(&version, d, sizeof(version));
	o->version = version;
	o->cpu_count = u64_at(d, len, TS_FIELD(cpu_count));
	o->cpu_delay = u64_at(d, len, TS_FIELD(cpu_delay_total));
	o->blkio_count = u64_at(d, len, TS_FIELD(blkio_count));
	o->blkio_delay = u64_at(d, len, TS_FIELD(blkio_delay_total));
	o->swapin_count = u64_at(d, len, TS_FIELD(swapin_count));
	o->swapin_delay = u64_at(d, len, TS_FIELD(swapin_delay_total));
	o->freepages_count = u64_at(d, len, TS_FIELD(freepages_count));
	o->freepages_delay = u64_at(d, len, TS_FIELD(freepages_delay_total));
	o->thrashing_count = u64_at(d, len, TS_FIELD(thrashing_count));
	o->thrashing_delay = u64_at(d, len, TS_FIELD(thrashing_delay_total));
	o->compact_count = u64_at(d, len, TS_FIELD(compact_count));
	o->compact_delay = u64_at(d, len, TS_FIELD(compact_delay_total));
	if (version >= 13) {
		o->wpcopy_count = u64_at(d, len, TS_FIELD(wpcopy_count));
		o->wpcopy_delay = u64_at(d, len, TS_FIELD(wpcopy_delay_total));
	}
	if (version >= 14) {
		o->irq_count = u64_at(d, len, TS_IRQ_COUNT);
		o->irq_delay = u64_at(d, len, TS_IRQ_COUNT + 8);
	}
}

int proc_taskstats_parse(const void *buf, size_t len, struct proc_taskstats *out)
{
	const unsigned char *p, *end, *d, *nd;
	size_t plen = 0, dlen, ndlen;
	uint16_t type, ntype;
	int err;
	int found = 0;

	memset(out, 0, sizeof(*out));
	if (!(p = genl_payload(buf, len, &plen, &err)))
		return err ? err : -EINVAL;
	end = p + plen;
	while (next_attr(&p, end, &type, &d, &dlen) == 0) {
		if (type != TASKSTATS_TYPE_AGGR_PID && type != TASKSTATS_TYPE_AGGR_TGID)
			continue;
		const unsigned char *q = d, *qend = d + dlen;
		while (next_attr(&q, qend, &ntype, &nd, &ndlen) == 0) {
			if ((ntype == TASKSTATS_TYPE_PID || ntype == TASKSTATS_TYPE_TGID) && ndlen >= 4)
				memcpy(&out->pid, nd, 4);
			else if (ntype == TASKSTATS_TYPE_STATS && ndlen >= TS_FIELD(cpu_delay_total) + 8) {
				stats_of(nd, ndlen, out);
				found = 1;
			}
		}
	}
	return found ? 0 : -EINVAL;
}

int proc_taskstats_exit_parse(const void *buf, size_t len, struct proc_task_exit *out)
{
	const unsigned char *p, *end, *d, *nd;
	size_t plen = 0, dlen, ndlen;
	uint16_t type, ntype;
	int err;

	memset(out, 0, sizeof(*out));
	if (!(p = genl_payload(buf, len, &plen, &err)))
		return err ? err : -EINVAL;
	end = p + plen;
	while (next_attr(&p, end, &type, &d, &dlen) == 0) {
		if (type != TASKSTATS_TYPE_AGGR_PID)
			continue; /* a group's sum (AGGR_TGID) comes beside its last thread's */
		const unsigned char *q = d, *qend = d + dlen;
		while (next_attr(&q, qend, &ntype, &nd, &ndlen) == 0) {
			if (ntype != TASKSTATS_TYPE_STATS || ndlen < TS_FIELD(ac_stime) + 8)
				continue;
			uint16_t version;
			uint32_t v32;
			memcpy(&version, nd, sizeof(version));
			memcpy(&out->pid, nd + TS_FIELD(ac_pid), 4);
			memcpy(&out->ppid, nd + TS_FIELD(ac_ppid), 4);
			memcpy(&out->uid, nd + TS_FIELD(ac_uid), 4);
			memcpy(&out->exitcode, nd + TS_FIELD(ac_exitcode), 4);
			memcpy(&v32, nd + TS_FIELD(ac_btime), 4);
			out->btime = v32;
			out->etime_us = u64_at(nd, ndlen, TS_FIELD(ac_etime));
			out->utime_us = u64_at(nd, ndlen, TS_FIELD(ac_utime));
			out->stime_us = u64_at(nd, ndlen, TS_FIELD(ac_stime));
			copy_cstr(out->comm, sizeof(out->comm), (const char *)nd + TS_FIELD(ac_comm),
				  strnlen((const char *)nd + TS_FIELD(ac_comm), TS_COMM_LEN));
			if (version >= 13 && ndlen >= TS_FIELD(ac_tgid) + 4)
				memcpy(&out->tgid, nd + TS_FIELD(ac_tgid), 4);
			return 0;
		}
	}
	return -EINVAL;
}

int proc_genl_family_parse(const void *buf, size_t len, uint16_t *id)
{
	const unsigned char *p, *end, *d;
	size_t plen = 0, dlen;
	uint16_t type;
	int err;

	if (!(p = genl_payload(buf, len, &plen, &err)))
		return err ? err : -EINVAL;
	end = p + plen;
	while (next_attr(&p, end, &type, &d, &dlen) == 0)
		if (type == CTRL_ATTR_FAMILY_ID && dlen >= 2) {
			memcpy(id, d, 2);
			return 0;
		}
	return -EINVAL;
}

/* Send one request (cmd with one attribute) and read the reply into buf. */
static ssize_t request(struct proc_taskstats_sock *s, uint16_t type, uint8_t cmd, uint16_t atype, const void *adata,
		       size_t alen, unsigned char *buf, size_t size)
{
	struct {
		struct nlmsghdr n;
		struct genlmsghdr g;
		unsigned char attrs[64];
	} req;
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + alen), .nla_type = atype };
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };

	if (alen > sizeof(req.attrs) - NLA_HDRLEN)
		return -EINVAL;
	memset(&req, 0, sizeof(req));
	req.n.nlmsg_len = (uint32_t)(NLMSG_LENGTH(GENL_HDRLEN) + NLA_ALIGN(a.nla_len));
	req.n.nlmsg_type = type;
	req.n.nlmsg_flags = NLM_F_REQUEST;
	req.n.nlmsg_seq = ++s->seq;
	req.n.nlmsg_pid = 0;
	req.g.cmd = cmd;
	req.g.version = 1;
	memcpy(req.attrs, &a, sizeof(a));
	memcpy(req.attrs + NLA_HDRLEN, adata, alen);
	if (sendto(s->fd, &req, req.n.nlmsg_len, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		return -errno;
	for (;;) { /* skip a stale reply to an earlier request */
		ssize_t n = recv(s->fd, buf, size, 0);
		if (n < 0)
			return errno == EINTR ? -EINTR : -errno;
		if ((size_t)n >= sizeof(struct nlmsghdr) && ((const struct nlmsghdr *)buf)->nlmsg_seq == s->seq)
			return n;
	}
}

int proc_taskstats_open(struct proc_taskstats_sock *s)
{
	unsigned char buf[4096];
	struct sockaddr_nl me = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 1 };
	static const char name[] = TASKSTATS_GENL_NAME;

	memset(s, 0, sizeof(*s));
	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (s->fd < 0)
		return -errno;
	setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(s->fd, (struct sockaddr *)&me, sizeof(me)) < 0) {
		int err = -errno;
		proc_taskstats_close(s);
		return err;
	}
	ssize_t n = request(s, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME, name, sizeof(name), buf,
			    sizeof(buf));
	int r = n < 0 ? (int)n : proc_genl_family_parse(buf, (size_t)n, &s->family);
	if (r < 0)
		proc_taskstats_close(s);
	return r;
}

int proc_taskstats_read(struct proc_taskstats_sock *s, pid_t tid, struct proc_taskstats *out)
{
	unsigned char buf[1024];
	uint32_t pid = (uint32_t)tid;
	ssize_t n = request(s, s->family, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_PID, &pid, sizeof(pid), buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	return proc_taskstats_parse(buf, (size_t)n, out);
}

int proc_taskstats_listen(struct proc_taskstats_sock *s, const char *cpumask)
{
	struct {
		struct nlmsghdr n;
		struct genlmsghdr g;
		unsigned char attrs[80];
	} req;
	size_t alen = strlen(cpumask) + 1;
	struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + alen), .nla_type = TASKSTATS_CMD_ATTR_REGISTER_CPUMASK };
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	unsigned char buf[1024];
	int rcv = 4 << 20;

	if (alen > sizeof(req.attrs) - NLA_HDRLEN)
		return -EINVAL;
	memset(&req, 0, sizeof(req));
	req.n.nlmsg_len = (uint32_t)(NLMSG_LENGTH(GENL_HDRLEN) + NLA_ALIGN(a.nla_len));
	req.n.nlmsg_type = s->family;
	req.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.n.nlmsg_seq = ++s->seq;
	req.g.cmd = TASKSTATS_CMD_GET;
	req.g.version = 1;
	memcpy(req.attrs, &a, sizeof(a));
	memcpy(req.attrs + NLA_HDRLEN, cpumask, alen);
	setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	if (sendto(s->fd, &req, req.n.nlmsg_len, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		return -errno;
	for (;;) { /* the ack (exits may come first) */
		ssize_t n = recv(s->fd, buf, sizeof(buf), 0);
		if (n < 0)
			return -errno;
		const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
		if ((size_t)n >= NLMSG_LENGTH(sizeof(struct nlmsgerr)) && h->nlmsg_type == NLMSG_ERROR &&
		    h->nlmsg_seq == s->seq) {
			const struct nlmsgerr *er = NLMSG_DATA(h);
			return er->error;
		}
	}
}

void proc_taskstats_close(struct proc_taskstats_sock *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}
