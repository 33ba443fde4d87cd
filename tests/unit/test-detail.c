/* Parsers of the detail panes on fixtures (tests/fixtures/detail/). */
#include "tap.h"

#include "proc/caps.h"
#include "proc/fd.h"
#include "proc/info.h"
#include "proc/maps.h"
#include "proc/net.h"
#include "proc/rollup.h"
#include "proc/syscalls.h"
#include "proc/task.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/netlink_diag.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <sys/socket.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char buf[1 << 16];

static size_t fx(const char *name)
{
	char path[128];
	snprintf(path, sizeof(path), "detail/%s", name);
	return tap_fixture(path, buf, sizeof(buf));
}

static void test_fd(void)
{
	struct proc_fdinfo fi;
	bool del;
	unsigned long long ino;
	char fl[128];

	is_int(proc_fdinfo_parse(buf, fx("fdinfo-eventfd.txt"), &fi), 0, "eventfd fdinfo parses");
	is_str(fi.extra, "count=7", "eventfd counter");
	is_int(fi.flags, O_RDWR, "eventfd flags O_RDWR");
	is_int(proc_fdinfo_parse(buf, fx("fdinfo-epoll.txt"), &fi), 0, "epoll fdinfo parses");
	is_str(fi.extra, "watches=2 (fd 7,12)", "epoll watch list");
	is_int(proc_fdinfo_parse(buf, fx("fdinfo-file.txt"), &fi), 0, "file fdinfo parses");
	is_int((long long)fi.pos, 5, "file position");
	is_int(proc_fdinfo_parse("garbage", 7, &fi), -22, "garbage fdinfo is refused");
	is_str(proc_fd_flags_str(O_WRONLY | O_APPEND | O_CLOEXEC | O_NONBLOCK, fl, sizeof(fl)), "w,append,nonblock,cloexec",
	       "flags decoded");
	is_str(proc_fd_flags_str(O_RDONLY | O_DIRECTORY, fl, sizeof(fl)), "r,directory", "directory flag decoded");

	is_int(proc_fd_classify("socket:[50929]", &del, &ino), FDT_SOCKET, "socket classified");
	is_int((long long)ino, 50929, "socket inode");
	is_int(proc_fd_classify("pipe:[31879]", &del, &ino), FDT_PIPE, "pipe classified");
	is_int(proc_fd_classify("anon_inode:[eventfd]", &del, &ino), FDT_EVENTFD, "eventfd classified");
	is_int(proc_fd_classify("anon_inode:[eventpoll]", &del, &ino), FDT_EPOLL, "epoll classified");
	is_int(proc_fd_classify("anon_inode:[timerfd]", &del, &ino), FDT_TIMERFD, "timerfd classified");
	is_int(proc_fd_classify("anon_inode:[signalfd]", &del, &ino), FDT_SIGNALFD, "signalfd classified");
	is_int(proc_fd_classify("anon_inode:inotify", &del, &ino), FDT_INOTIFY, "inotify classified");
	is_int(proc_fd_classify("anon_inode:[pidfd]", &del, &ino), FDT_PIDFD, "pidfd classified");
	is_int(proc_fd_classify("anon_inode:[io_uring]", &del, &ino), FDT_ANON, "other anon inode");
	is_int(proc_fd_classify("/memfd:jit (deleted)", &del, &ino), FDT_MEMFD, "memfd classified");
	is_int(proc_fd_classify("/dev/pts/3", &del, &ino), FDT_DEVICE, "device classified");
	is_int(proc_fd_classify("/dev/shm/x", &del, &ino), FDT_FILE, "/dev/shm is a file");
	is_int(proc_fd_classify("/tmp/x (deleted)", &del, &ino), FDT_FILE, "deleted file is a file");
	ok(del, "deleted marked");
	is_int(proc_fd_classify("net:[4026531833]", &del, &ino), FDT_OTHER, "namespace fd is other");
}

static const struct proc_fd *find_fd(const struct proc_fd_list *l, int fd)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].fd == fd)
			return &l->v[i];
	return NULL;
}

/* PROC_FD_CACHED on this process: new and closed numbers are seen at once,
 * an fd reopened to another file under the same number within
 * PROC_FD_RECHECK reads, and the cached list then equals a fresh one. */
static void test_fd_cached(void)
{
	struct proc_fd_list l = { 0 }, fresh = { 0 };
	int self = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int x = open("/proc/self/stat", O_RDONLY | O_CLOEXEC), y, p[2];
	const struct proc_fd *f;
	int seen_at = 0;

	if (self < 0 || x < 0 || pipe(p) < 0 || dup2(p[0], 200) != 200) { /* 200: a number nothing reuses */
		ok(0, "set up the fds");
		return;
	}
	is_int(proc_fd_read(self, &l, PROC_FD_CACHED), 0, "cached read of our fds");
	f = find_fd(&l, x);
	ok(f && strstr(f->target, "/stat") && f->type == FDT_FILE, "first read has the file");
	ok(find_fd(&l, 200) && find_fd(&l, 200)->type == FDT_PIPE, "first read has the pipe");
	y = dup(x);
	close(200);
	is_int(proc_fd_read(self, &l, PROC_FD_CACHED), 0, "second cached read");
	ok(find_fd(&l, y) != NULL, "a new fd is seen at once");
	ok(find_fd(&l, 200) == NULL, "a closed fd is gone at once");
	/* Reopen x to another file under the same number. */
	int dn = open("/dev/null", O_RDONLY | O_CLOEXEC);
	dup2(dn, x);
	close(dn);
	for (int i = 1; i <= PROC_FD_RECHECK && !seen_at; i++) {
		proc_fd_read(self, &l, PROC_FD_CACHED);
		f = find_fd(&l, x);
		if (f && !strcmp(f->target, "/dev/null") && f->type == FDT_DEVICE)
			seen_at = i;
	}
	ok(seen_at > 0, "an fd reopened to another file is seen within %d reads (at read %d)", PROC_FD_RECHECK,
	   seen_at);
	is_int(proc_fd_read(self, &fresh, 0), 0, "fresh read");
	bool same = fresh.n == l.n && !memcmp(fresh.count, l.count, sizeof(l.count));
	for (size_t i = 0; same && i < l.n; i++)
		same = l.v[i].fd == fresh.v[i].fd && l.v[i].type == fresh.v[i].type &&
		       (!strcmp(l.v[i].target, fresh.v[i].target) || l.v[i].fd == self);
	ok(same, "cached list equals a fresh read (%zu fds)", l.n);
	proc_fd_list_free(&l);
	proc_fd_list_free(&fresh);
	close(x);
	close(y);
	close(p[0]);
	close(p[1]);
	close(self);
}

static void test_net(void)
{
	struct proc_net n = { 0 };
	const struct proc_sock *s;
	struct proc_fd f = { .fd = 9, .type = FDT_SOCKET, .ino = 50931 };
	char d[256];

	is_int(proc_net_parse(buf, fx("net-tcp.txt"), NET_TCP, &n), 0, "tcp parses");
	is_int(proc_net_parse(buf, fx("net-tcp6.txt"), NET_TCP6, &n), 0, "tcp6 parses");
	is_int(proc_net_parse(buf, fx("net-udp.txt"), NET_UDP, &n), 0, "udp parses");
	is_int(proc_net_parse(buf, fx("net-unix.txt"), NET_UNIX, &n), 0, "unix parses");
	is_int(proc_net_parse(buf, fx("net-netlink.txt"), NET_NETLINK, &n), 0, "netlink parses");
	is_int((long long)n.n, 6 + 2 + 1 + 4 + 2, "every socket line read");
	proc_net_index(&n);
	s = proc_net_find(&n, 50929);
	ok(s && !strcmp(s->local, "127.0.0.1:58157") && !strcmp(proc_sock_state(s), "LISTEN"), "tcp listener");
	s = proc_net_find(&n, 50930);
	ok(s && !strcmp(s->local, "127.0.0.1:48454") && !strcmp(s->peer, "127.0.0.1:58157") &&
		   !strcmp(proc_sock_state(s), "ESTABLISHED"),
	   "tcp established connection endpoints");
	s = proc_net_find(&n, 4242);
	ok(s && !strcmp(s->local, "[::1]:53") && !strcmp(proc_sock_state(s), "LISTEN"), "tcp6 ::1 listener");
	s = proc_net_find(&n, 4243);
	ok(s && !strcmp(s->local, "[::ffff:127.0.0.1]:8080") && !strcmp(s->peer, "[::ffff:127.0.0.1]:50000"),
	   "tcp6 v4-mapped endpoints");
	s = proc_net_find(&n, 50932);
	ok(s && !strcmp(s->local, "127.0.0.1:39037") && !strcmp(proc_sock_state(s), "UNCONN"), "udp socket");
	s = proc_net_find(&n, 33077);
	ok(s && !strcmp(s->local, "/run/test.sock") && !strcmp(proc_sock_state(s), "LISTEN") &&
		   !strcmp(proc_sock_unix_type(s), "stream"),
	   "unix listener with path");
	s = proc_net_find(&n, 50725);
	ok(s && !s->local[0] && !strcmp(proc_sock_state(s), "CONNECTED"), "unix connected, unnamed");
	s = proc_net_find(&n, 50727);
	ok(s && !strcmp(proc_sock_unix_type(s), "seqpacket"), "unix seqpacket");
	ok(!proc_net_find(&n, 1), "unknown inode not found");
	s = proc_net_find(&n, 70001);
	ok(s && !strcmp(proc_netlink_family(s), "route") && !strcmp(s->local, "portid 1234"), "netlink route socket");
	s = proc_net_find(&n, 70002);
	ok(s && !strcmp(proc_netlink_family(s), "audit"), "netlink audit socket");
	is_str(proc_fd_describe(&f, &n, d, sizeof(d)), "tcp 127.0.0.1:58157 -> 127.0.0.1:48454 ESTABLISHED",
	       "fd description of a connection");
	f.ino = 50929;
	is_str(proc_fd_describe(&f, &n, d, sizeof(d)), "tcp 127.0.0.1:58157 LISTEN", "fd description of a listener");
	f.ino = 70001;
	is_str(proc_fd_describe(&f, &n, d, sizeof(d)), "netlink route portid 1234", "fd description of a netlink socket");
	proc_net_free(&n);

	/* A bad line (what follows a newline in a unix path) is skipped, never
	 * the lines after it. */
	static const char unx[] =
		"Num       RefCount Protocol Flags    Type St Inode Path\n"
		"0000000000000000: 00000002 00000000 00010000 0001 01 100 /tmp/a\n"
		"b.sock\n"
		"0000000000000000: 00000003 00000000 00000000 0001 03 200\n";
	is_int(proc_net_parse(unx, sizeof(unx) - 1, NET_UNIX, &n), 0, "unix text with a broken line parses");
	proc_net_index(&n);
	ok(n.n == 2 && proc_net_find(&n, 200) && !strcmp(proc_net_find(&n, 100)->local, "/tmp/a"),
	   "the line after the broken one is kept");
	is_int(proc_net_parse("h\nbad\n", 6, NET_UNIX, &n), -EINVAL, "no line parses: -EINVAL");
	proc_net_free(&n);
}

/* One sock_diag reply: netlink messages as recv() returns them. */
static size_t nl_put(unsigned char *b, size_t off, uint16_t type, const void *body, size_t len)
{
	struct nlmsghdr h = { .nlmsg_len = (uint32_t)NLMSG_LENGTH(len), .nlmsg_type = type };
	memcpy(b + off, &h, sizeof(h));
	memcpy(b + off + NLMSG_HDRLEN, body, len);
	return off + NLMSG_ALIGN(h.nlmsg_len);
}

static void test_sock_diag(void)
{
	unsigned char b[1024], body[256];
	struct proc_net n = { 0 };
	size_t off = 0;

	/* unix: an abstract name with a newline and NULs, and a peer */
	struct unix_diag_msg um = { .udiag_family = AF_UNIX, .udiag_type = SOCK_STREAM, .udiag_state = 10, .udiag_ino = 77 };
	static const char name[] = "\0x\n0000: 1 2 3 4 5 99 /run/EVIL.sock\0z";
	struct rtattr a = { .rta_len = (unsigned short)RTA_LENGTH(sizeof(name) - 1), .rta_type = UNIX_DIAG_NAME };
	uint32_t peer = 78;
	struct rtattr pa = { .rta_len = (unsigned short)RTA_LENGTH(4), .rta_type = UNIX_DIAG_PEER };
	size_t bl = 0;
	memcpy(body, &um, sizeof(um));
	bl = NLMSG_ALIGN(sizeof(um));
	memcpy(body + bl, &a, sizeof(a));
	memcpy(body + bl + RTA_LENGTH(0), name, sizeof(name) - 1);
	bl += RTA_ALIGN(a.rta_len);
	memcpy(body + bl, &pa, sizeof(pa));
	memcpy(body + bl + RTA_LENGTH(0), &peer, 4);
	bl += RTA_ALIGN(pa.rta_len);
	off = nl_put(b, off, SOCK_DIAG_BY_FAMILY, body, bl);
	is_int(proc_net_diag_parse(b, off, NET_UNIX, &n), 0, "sock_diag unix: more to come");
	off = nl_put(b, 0, NLMSG_DONE, "\0\0\0\0", 4);
	is_int(proc_net_diag_parse(b, off, NET_UNIX, &n), 1, "NLMSG_DONE ends the dump");
	proc_net_index(&n);
	const struct proc_sock *s = proc_net_find(&n, 77);
	ok(s && s->listening && s->peer_ino == 78, "unix listener and its peer");
	is_str(s ? s->local : NULL, "@x\n0000: 1 2 3 4 5 99 /run/EVIL.sock@z", "abstract name exact, NULs as '@'");
	ok(!proc_net_find(&n, 99), "the name forges nothing");

	/* tcp: endpoints in network order */
	struct inet_diag_msg im = { .idiag_family = AF_INET, .idiag_state = 1, .idiag_inode = 500 };
	im.id.idiag_sport = htons(8080);
	im.id.idiag_dport = htons(40000);
	im.id.idiag_src[0] = htonl(0x7f000001);
	im.id.idiag_dst[0] = htonl(0x0a000002);
	off = nl_put(b, 0, SOCK_DIAG_BY_FAMILY, &im, sizeof(im));
	im.idiag_inode = 0; /* TIME_WAIT: no inode, skipped */
	off = nl_put(b, off, SOCK_DIAG_BY_FAMILY, &im, sizeof(im));
	is_int(proc_net_diag_parse(b, off, NET_TCP, &n), 0, "sock_diag tcp parses");
	proc_net_index(&n);
	s = proc_net_find(&n, 500);
	ok(s && !strcmp(s->local, "127.0.0.1:8080") && !strcmp(s->peer, "10.0.0.2:40000") &&
		   !strcmp(proc_sock_state(s), "ESTABLISHED"), "tcp endpoints and state");
	is_int((long long)n.n, 2, "the inode-less socket is not listed");
	im.idiag_family = AF_INET6;
	off = nl_put(b, 0, SOCK_DIAG_BY_FAMILY, &im, sizeof(im));
	is_int(proc_net_diag_parse(b, off, NET_TCP, &n), -EINVAL, "a message of another family is refused");

	/* netlink */
	struct netlink_diag_msg nm = { .ndiag_family = AF_NETLINK, .ndiag_protocol = 9, .ndiag_portid = 42, .ndiag_ino = 600 };
	off = nl_put(b, 0, SOCK_DIAG_BY_FAMILY, &nm, sizeof(nm));
	is_int(proc_net_diag_parse(b, off, NET_NETLINK, &n), 0, "sock_diag netlink parses");
	proc_net_index(&n);
	s = proc_net_find(&n, 600);
	ok(s && !strcmp(proc_netlink_family(s), "audit") && !strcmp(s->local, "portid 42"), "netlink family and portid");

	/* errors and malformed replies */
	int err = -ENOENT;
	off = nl_put(b, 0, NLMSG_ERROR, &err, sizeof(err));
	is_int(proc_net_diag_parse(b, off, NET_UNIX, &n), -ENOENT, "NLMSG_ERROR gives the kernel's error");
	off = nl_put(b, 0, SOCK_DIAG_BY_FAMILY, &um, sizeof(um));
	struct nlmsghdr h;
	memcpy(&h, b, sizeof(h));
	h.nlmsg_len = 4096;
	memcpy(b, &h, sizeof(h));
	is_int(proc_net_diag_parse(b, off, NET_UNIX, &n), -EINVAL, "a length past the buffer is refused");
	off = nl_put(b, 0, SOCK_DIAG_BY_FAMILY, &um, 4);
	is_int(proc_net_diag_parse(b, off, NET_UNIX, &n), -EINVAL, "a short message is refused");
	off = nl_put(b, 0, SOCK_DIAG_BY_FAMILY, body, bl);
	b[NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(um))] = 200; /* rta_len past the message */
	is_int(proc_net_diag_parse(b, off, NET_UNIX, &n), -EINVAL, "an attribute past its message is refused");
	proc_net_free(&n);
}

static void test_maps(void)
{
	struct proc_maps m = { 0 };
	struct proc_map_agg *agg;
	size_t nagg;

	is_int(proc_maps_parse(buf, fx("maps.txt"), false, &m), 0, "maps parses");
	is_int((long long)m.n, 31, "31 mappings");
	is_int((long long)m.v[0].start, 0x563a02a9c000ll, "start address");
	is_str(m.v[0].perms, "r--p", "perms");
	is_int(m.v[0].dev_major, 0xfe, "device major");
	is_int((long long)m.v[0].inode, 5310310, "inode");
	is_str(m.v[0].path, "/usr/local/bin/detail-target", "path");
	is_str(m.v[29].path, "/tmp/my file (deleted)", "path with a space");
	ok(m.v[29].deleted, "deleted mapping");
	is_str(m.v[29].perms, "rw-s", "shared mapping");
	is_int((long long)m.v[29].offset, 0x1000, "offset");
	ok(!strncmp(m.v[30].path, "/tmp/\033]0;evil", 10), "hostile path kept raw (escaped when shown)");
	is_int(m.v[0].rss_kb, -1, "no Rss without smaps");
	is_int(proc_maps_aggregate(&m, &agg, &nagg), 0, "aggregate");
	ok(nagg > 3 && nagg < m.n, "fewer files than mappings");
	int found = 0;
	for (size_t i = 0; i < nagg; i++)
		if (!strcmp(agg[i].path, "/usr/local/bin/detail-target"))
			found = agg[i].count == 5 && agg[i].size_kb == 20;
	ok(found, "per-file aggregate: 5 mappings, 20 kB");
	free(agg);

	is_int(proc_maps_parse(buf, fx("smaps.txt"), true, &m), 0, "smaps parses");
	is_int((long long)m.n, 3, "3 mappings in smaps");
	is_int(m.v[2].rss_kb, 12, "smaps Rss");
	is_int(m.v[2].pss_kb, 6, "smaps Pss");
	is_int(m.v[2].swap_kb, 8, "smaps Swap");
	is_int(m.v[2].dirty_kb, 6, "smaps dirty = shared + private dirty");
	is_int(proc_maps_aggregate(&m, &agg, &nagg), 0, "smaps aggregate");
	ok(nagg == 1 && agg[0].rss_kb == 20 && agg[0].swap_kb == 8 && agg[0].count == 3, "smaps aggregate sums");
	free(agg);
	is_int(proc_maps_parse("zzz nonsense\n", 13, false, &m), -22, "garbage maps refused");
	proc_maps_free(&m);
}

/* The parser's copy of the text ends right before an unmapped page, so a
 * compare that runs past a short last line faults instead of passing. */
static void test_maps_short_last_line(void)
{
	static const char *const tails[] = { "S", "Sh", "Shared_Dirt", "P", "Private_Dirty", "Private_D" };
	long pg = sysconf(_SC_PAGESIZE);
	char *area = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char in[256];

	if (area == MAP_FAILED || mprotect(area + pg, (size_t)pg, PROT_NONE)) {
		ok(0, "guard page");
		return;
	}
	for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		struct proc_maps m = { 0 };
		int len = snprintf(in, sizeof(in), "7f00-7f01 rw-p 0 00:00 0\nRss: 4 kB\n%s", tails[i]);
		m.text = area + pg - (len + 1);
		m.text_cap = (size_t)len + 1;
		is_int(proc_maps_parse(in, (size_t)len, true, &m), 0, "smaps ending in '%s' parses", tails[i]);
		ok(m.n == 1 && m.v[0].rss_kb == 4 && m.v[0].dirty_kb == -1, "'%s' is no dirty field", tails[i]);
		free(m.v);
		free(m.io);
	}
	munmap(area, (size_t)pg * 2);
}

static void test_rollup(void)
{
	struct proc_rollup r;

	is_int(proc_rollup_parse(buf, fx("smaps_rollup.txt"), &r), 0, "smaps_rollup parses");
	is_int(r.kb[RU_RSS], 1452, "Rss");
	is_int(r.kb[RU_PSS], 181, "Pss");
	ok(r.kb[RU_PSS_ANON] >= 0 && r.kb[RU_SWAP_PSS] >= 0 && r.kb[RU_LOCKED] >= 0, "Pss_Anon, SwapPss, Locked present");
	is_str(proc_rollup_json(RU_ANON_HUGE), "anon_huge_pages_kb", "stable JSON name");
	is_int(proc_rollup_parse("Rss: 10 kB\n", 11, &r), 0, "a short rollup parses");
	is_int(r.kb[RU_PSS_DIRTY], -1, "a missing field is -1");
	static const char ksm[] = "Anonymous: 120 kB\nKSM: 24 kB\nLazyFree: 0 kB\n";
	is_int(proc_rollup_parse(ksm, sizeof(ksm) - 1, &r), 0, "a rollup with KSM pages parses");
	is_int(r.kb[RU_KSM], 24, "KSM (pages merged by KSM)");
	is_str(proc_rollup_json(RU_KSM), "ksm_kb", "... as ksm_kb");
}

static void test_task(void)
{
	long nr;
	unsigned long long a[6], run, wait, slices;
	struct proc_thread t = { 0 };
	char s[96];

	is_int(proc_syscall_parse(buf, fx("syscall.txt"), &nr, a), 0, "syscall parses");
	is_int(nr, 230, "clock_nanosleep number");
	is_str(proc_syscall_name(nr), "clock_nanosleep", "syscall name");
	is_str(proc_syscall_name(0), "read", "syscall 0 is read");
	is_str(proc_syscall_name(202), "futex", "syscall 202 is futex");
	ok(!proc_syscall_name(100000) && !proc_syscall_name(-1), "unknown numbers have no name");
	is_int(proc_syscall_parse("running\n", 8, &nr, a), 0, "running parses");
	is_int(nr, PROC_SYSCALL_RUNNING, "running");
	is_int(proc_syscall_parse("-1 0x7ffc 0x4005\n", 17, &nr, a), 0, "blocked outside a syscall parses");
	is_int(nr, -1, "-1");
	is_int(proc_syscall_parse("0 0x3 0x7f00 0x1", 16, &nr, a), -22, "truncated args refused");
	t.syscall_nr = 0;
	t.syscall_args[0] = 3;
	is_str(proc_thread_syscall_str(&t, s, sizeof(s)), "read(0x3)", "syscall with first argument");
	is_int(proc_schedstat_parse(buf, fx("schedstat.txt"), &run, &wait, &slices), 0, "schedstat parses");
	is_int((long long)run, 18655, "run time ns");
	is_int((long long)wait, 1107938, "run-queue wait ns");

	struct proc_threads p = { 0 }, c = { 0 };
	struct proc_thread pv = { .tid = 5, .run_ns = 0, .wait_ns = 0, .have_schedstat = 1 };
	struct proc_thread cv = { .tid = 5, .run_ns = 500000000, .wait_ns = 20000000, .have_schedstat = 1 };
	p.v = &pv;
	p.n = 1;
	p.when = 10;
	c.v = &cv;
	c.n = 1;
	c.when = 12;
	proc_threads_rates(&p, &c);
	ok(cv.cpu_pct > 24.9 && cv.cpu_pct < 25.1, "CPU%% from schedstat run time");
	ok(cv.wait_ms_per_s > 9.9 && cv.wait_ms_per_s < 10.1, "run-queue delay per second");
}

static void test_info(void)
{
	char out[64];
	static const char stat_zombie[] =
		"42 (a) b) Z 1 42 42 0 -1 4228100 1 0 0 0 0 0 0 0 20 0 1 0 100 0 0 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 768\n";

	is_int(proc_stat_exit_code_parse(stat_zombie, strlen(stat_zombie)), 768, "exit code field 52 (after a ')' in comm)");
	is_int(proc_stat_exit_code_parse("1 (x) S 0 1", 11), -1, "old kernels: no exit code");
	is_int((long long)proc_cmdline_parse("ls\0-l\0/tmp\0", 11, out, sizeof(out)), 10, "cmdline length");
	is_str(out, "ls -l /tmp", "cmdline NULs become spaces");
	proc_caps_str(0, out, sizeof(out));
	is_str(out, "none", "no capabilities");
	proc_caps_str((1ull << 19) | (1ull << 21), out, sizeof(out));
	is_str(out, "cap_sys_ptrace,cap_sys_admin", "capabilities named");
	proc_caps_str(0x1fffeffffffull, out, sizeof(out));
	is_str(out, "all except cap_sys_resource", "root minus one");
	proc_caps_str(0x1ffffffffffull, out, sizeof(out));
	is_str(out, "all", "every capability");
	is_str(proc_cap_name(40), "cap_checkpoint_restore", "newest capability name");
	is_str(proc_state_name('D'), "disk sleep", "state word");
}

/* Every parser on every prefix of every fixture, copied to an exact-size
 * heap buffer with no terminating NUL: under the sanitizers an overread
 * fails the run. Parsers may refuse a prefix but must not crash. */
static void test_prefixes(void)
{
	static const char *const files[] = {
		"fdinfo-eventfd.txt", "fdinfo-epoll.txt", "net-tcp.txt", "net-tcp6.txt", "net-udp.txt",
		"net-unix.txt", "net-netlink.txt", "maps.txt", "smaps.txt", "smaps_rollup.txt",
		"syscall.txt", "schedstat.txt",
	};
	int runs = 0;

	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		size_t n = fx(files[f]);
		for (size_t len = 0; len <= n; len += len < 512 ? 1 : 97) {
			char *p = malloc(len ? len : 1);
			struct proc_fdinfo fi;
			struct proc_net net = { 0 };
			struct proc_maps m = { 0 };
			struct proc_rollup r;
			long nr;
			unsigned long long a[6], x, y, z;

			memcpy(p, buf, len);
			proc_fdinfo_parse(p, len, &fi);
			for (int proto = 0; proto < NET_PROTO_COUNT; proto++)
				proc_net_parse(p, len, (enum proc_net_proto)proto, &net);
			proc_maps_parse(p, len, false, &m);
			proc_maps_parse(p, len, true, &m);
			proc_rollup_parse(p, len, &r);
			proc_syscall_parse(p, len, &nr, a);
			proc_schedstat_parse(p, len, &x, &y, &z);
			proc_stat_exit_code_parse(p, len);
			proc_net_free(&net);
			proc_maps_free(&m);
			free(p);
			runs++;
		}
	}
	ok(runs > 1000, "every parser survived %d truncated inputs", runs);
}

int main(void)
{
	test_fd();
	test_fd_cached();
	test_net();
	test_sock_diag();
	test_maps();
	test_maps_short_last_line();
	test_rollup();
	test_task();
	test_info();
	test_prefixes();
	return tap_done();
}
