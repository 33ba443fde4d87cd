#include "proc/info.h"
#include "i18n.h"
#include "proc/sysinfo.h"
#include "util.h"
#include "i18n.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const ns_names[PROC_NS_COUNT] = { "cgroup", "ipc", "mnt", "net", "pid", "time", "user", "uts" };

int proc_stat_exit_code_parse(const char *buf, size_t len)
{
	const char *p = NULL;
	int field = 2;

	for (size_t i = len; i > 0; i--)
		if (buf[i - 1] == ')') {
			p = buf + i;
			break;
		}
	if (!p)
		return -1;
	/* field 3 (state) starts after ") "; walk to field 52 */
	const char *end = buf + len, *last = NULL;
	while (p < end) {
		while (p < end && *p == ' ')
			p++;
		if (p >= end || *p == '\n')
			break;
		field++;
		last = p;
		while (p < end && *p != ' ' && *p != '\n')
			p++;
		if (field == 52) {
			char num[24];
			size_t l = (size_t)(p - last) < sizeof(num) - 1 ? (size_t)(p - last) : sizeof(num) - 1;
			memcpy(num, last, l);
			num[l] = '\0';
			return (int)strtol(num, NULL, 10);
		}
	}
	return -1;
}

static void readlink_safe(int dirfd, const char *name, char *out, size_t size, int *err)
{
	ssize_t n = readlinkat(dirfd, name, out, size - 1);
	if (n < 0) {
		*err = -errno;
		out[0] = '\0';
		return;
	}
	out[n] = '\0';
	*err = 0;
}

static void id_name(bool user, unsigned id, char *out, size_t size)
{
	char buf[4096];
	if (user) {
		struct passwd pw, *res = NULL;
		if (getpwuid_r(id, &pw, buf, sizeof(buf), &res) == 0 && res) {
			strlcpy_ps(out, pw.pw_name, size);
			return;
		}
	} else {
		struct group gr, *res = NULL;
		if (getgrgid_r(id, &gr, buf, sizeof(buf), &res) == 0 && res) {
			strlcpy_ps(out, gr.gr_name, size);
			return;
		}
	}
	snprintf(out, size, "%u", id);
}

static double boot_epoch(double *uptime)
{
	struct timespec rt;
	if (sys_uptime_read(uptime) < 0)
		*uptime = 0;
	clock_gettime(CLOCK_REALTIME, &rt);
	return (double)rt.tv_sec + rt.tv_nsec / 1e9 - *uptime;
}

int proc_info_read(int dirfd, struct proc_info *out)
{
	char buf[4096];
	ssize_t n;
	int r;
	long hz = sysconf(_SC_CLK_TCK);

	memset(out, 0, sizeof(*out));
	out->when = now_s();
	n = read_file_at(dirfd, "stat", buf, sizeof(buf));
	if (n <= 0)
		return n < 0 ? (int)n : -ESRCH;
	r = proc_stat_parse(buf, (size_t)n, &out->stat);
	if (r < 0)
		return r;
	out->exit_code = proc_stat_exit_code_parse(buf, (size_t)n);
	out->kthread = (out->stat.flags & PROC_PF_KTHREAD) != 0;
	r = proc_status_read(dirfd, &out->status);
	if (r < 0)
		return r;
	n = read_file_at(dirfd, "cmdline", buf, sizeof(buf));
	if (n > 0)
		proc_cmdline_parse(buf, (size_t)n, out->cmdline, sizeof(out->cmdline));
	n = read_file_at(dirfd, "cgroup", out->cgroup, sizeof(out->cgroup));
	if (n > 0 && out->cgroup[n - 1] == '\n')
		out->cgroup[n - 1] = '\0';
	else if (n == (ssize_t)sizeof(out->cgroup) - 1) /* cut: say so */
		memcpy(out->cgroup + n - 3, "...", 3);
	for (int i = 0; i < PROC_NS_COUNT; i++) {
		char path[32], link[64];
		snprintf(path, sizeof(path), "ns/%s", ns_names[i]);
		out->ns[i].name = ns_names[i];
		n = readlinkat(dirfd, path, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			char *b = strchr(link, '[');
			if (b)
				out->ns[i].ino = strtoull(b + 1, NULL, 10);
		}
		out->ns[i].other = -1;
		if (out->ns[i].ino) {
			struct stat st;
			snprintf(path, sizeof(path), "/proc/self/ns/%s", ns_names[i]);
			if (stat(path, &st) == 0)
				out->ns[i].other = st.st_ino != out->ns[i].ino;
		}
	}
	out->oom_score = out->oom_score_adj = INT_MIN;
	if (read_file_at(dirfd, "oom_score", buf, sizeof(buf)) > 0)
		out->oom_score = atoi(buf);
	if (read_file_at(dirfd, "oom_score_adj", buf, sizeof(buf)) > 0)
		out->oom_score_adj = atoi(buf);
	readlink_safe(dirfd, "cwd", out->cwd, sizeof(out->cwd), &out->cwd_err);
	readlink_safe(dirfd, "exe", out->exe, sizeof(out->exe), &out->exe_err);
	id_name(true, out->status.uid_real, out->user, sizeof(out->user));
	id_name(false, out->status.gid_real, out->group, sizeof(out->group));
	if (out->status.tracer_pid > 0) {
		int tfd = proc_open_pid(out->status.tracer_pid);
		if (tfd >= 0) {
			if (read_file_at(tfd, "comm", out->tracer_comm, sizeof(out->tracer_comm)) > 0)
				out->tracer_comm[strcspn(out->tracer_comm, "\n")] = '\0';
			close(tfd);
		}
	}
	double up;
	double boot = boot_epoch(&up);
	if (hz > 0) {
		double start = (double)out->stat.starttime / (double)hz;
		out->start_epoch = boot + start;
		out->uptime_s = up - start;
		if (out->uptime_s < 0)
			out->uptime_s = 0;
	}
	return 0;
}

void proc_info_rates(const struct proc_info *a, const struct proc_info *b, struct proc_info_rates *r)
{
	double dt = b->when - a->when;
	long hz = sysconf(_SC_CLK_TCK);

	memset(r, 0, sizeof(*r));
	if (dt <= 0 || hz <= 0 || a->stat.starttime != b->stat.starttime)
		return;
	r->cpu_pct = (double)(b->stat.utime + b->stat.stime - a->stat.utime - a->stat.stime) / (double)hz / dt * 100;
	r->vol_ctxt_s = (double)(b->status.voluntary_ctxt - a->status.voluntary_ctxt) / dt;
	r->nonvol_ctxt_s = (double)(b->status.nonvoluntary_ctxt - a->status.nonvoluntary_ctxt) / dt;
	r->minflt_s = (double)(b->stat.minflt - a->stat.minflt) / dt;
	r->majflt_s = (double)(b->stat.majflt - a->stat.majflt) / dt;
}

int proc_info_exited(const struct proc_info *i)
{
	return (i->stat.state == 'Z' || i->stat.state == 'X') && i->stat.num_threads <= 1;
}

const char *proc_state_name(char s)
{
	switch (s) {
	case 'R': return N_("running");
	case 'S': return N_("sleeping");
	case 'D': return N_("disk sleep");
	case 'Z': return N_("zombie");
	case 'T': return N_("stopped");
	case 't': return N_("tracing stop");
	case 'X': return N_("dead");
	case 'I': return N_("idle");
	case 'P': return N_("parked");
	default: return "?";
	}
}

static const struct proc_ns *ns_named(const struct proc_info *i, const char *name)
{
	for (int k = 0; k < PROC_NS_COUNT; k++)
		if (i->ns[k].name && !strcmp(i->ns[k].name, name))
			return &i->ns[k];
	return NULL;
}

bool proc_info_in_container(const struct proc_info *i)
{
	const struct proc_ns *mnt = ns_named(i, "mnt"), *pid = ns_named(i, "pid");

	return i->status.nspid_n > 1 || (mnt && mnt->other == 1) || (pid && pid->other == 1);
}

const char *proc_info_container_text(const struct proc_info *i, pid_t pid, char *buf, size_t size)
{
	const struct proc_ns *mnt = ns_named(i, "mnt");
	size_t n = 0;

	buf[0] = '\0';
	if (i->status.nspid_n > 1)
		n = (size_t)snprintf(buf, size, _("PID %d in its own pid namespace"),
				     (int)i->status.nspid[i->status.nspid_n - 1]);
	if (mnt && mnt->other == 1 && n < size)
		snprintf(buf + n, size - n, _("%sits own mount namespace: its files are read through /proc/%d/root"),
			 n ? "; " : "", (int)pid);
	return buf;
}

int proc_root_other(int dirfd)
{
	struct stat a, b;

	if (fstatat(dirfd, "ns/mnt", &a, 0) < 0 || stat("/proc/self/ns/mnt", &b) < 0)
		return -errno;
	if (a.st_ino != b.st_ino || a.st_dev != b.st_dev)
		return 1;
	if (fstatat(dirfd, "root/", &a, 0) < 0 || stat("/", &b) < 0)
		return -errno;
	return a.st_ino != b.st_ino || a.st_dev != b.st_dev;
}
