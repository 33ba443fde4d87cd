#include "actions.h"
#include "i18n.h"
#include "target.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_CLASS_SHIFT 13

/* The pid still names the process the user chose. */
static int same_process(const struct target_id *id, struct ps_error *e)
{
	struct target_id now;

	if (target_id_of(id->pid, &now, NULL) < 0 || now.starttime != id->starttime)
		return ps_error_set(e, ESRCH, _("process %d has exited (its PID may now name another process)"), (int)id->pid);
	return 0;
}

static int refused(struct ps_error *e, int err, pid_t pid, const char *what, const char *fix)
{
	int r = ps_error_set(e, err, _("cannot %s of PID %d: %s"), what, (int)pid, strerror(err));
	if (e && (err == EPERM || err == EACCES))
		snprintf(e->fix, sizeof(e->fix), "%s", fix);
	return r;
}

int act_get_nice(const struct target_id *id, int *nice, struct ps_error *e)
{
	pid_t pid = id->pid;

	errno = 0;
	int n = getpriority(PRIO_PROCESS, (id_t)pid);
	if (n == -1 && errno)
		return ps_error_set(e, errno, _("cannot read the nice value of PID %d: %s"), (int)pid, strerror(errno));
	*nice = n;
	return 0;
}

int act_set_nice(const struct target_id *id, int nice, struct ps_error *e)
{
	pid_t pid = id->pid;
	int r = same_process(id, e);
	if (r < 0)
		return r;
	if (nice < -20)
		nice = -20;
	if (nice > 19)
		nice = 19;
	if (setpriority(PRIO_PROCESS, (id_t)pid, nice) < 0)
		return refused(e, errno, pid, _("change the nice value"),
			       _("lowering a nice value, or renicing another user's process, needs CAP_SYS_NICE (root)"));
	return 0;
}

int act_get_affinity(const struct target_id *id, cpu_set_t *set, struct ps_error *e)
{
	pid_t pid = id->pid;

	CPU_ZERO(set);
	if (sched_getaffinity(pid, sizeof(*set), set) < 0)
		return ps_error_set(e, errno, _("cannot read the CPU affinity of PID %d: %s"), (int)pid, strerror(errno));
	return 0;
}

int act_set_affinity(const struct target_id *id, const cpu_set_t *set, struct ps_error *e)
{
	pid_t pid = id->pid;
	char path[64];
	DIR *d;
	struct dirent *de;
	int r = same_process(id, e), err = 0;

	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path)))
		return ps_error_set(e, ESRCH, _("process %d has exited"), (int)pid);
	while ((de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]) &&
		    sched_setaffinity((pid_t)atoi(de->d_name), sizeof(*set), set) < 0 && errno != ESRCH && !err)
			err = errno;
	closedir(d);
	if (err)
		return refused(e, err, pid, _("set the CPU affinity"),
			       _("another user's process needs CAP_SYS_NICE (root); the CPUs must be online and allowed by its cpuset"));
	return 0;
}

int act_get_ioprio(const struct target_id *id, int *cls, int *level, struct ps_error *e)
{
	pid_t pid = id->pid;

	long v = syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, pid);
	if (v < 0)
		return ps_error_set(e, errno, _("cannot read the I/O priority of PID %d: %s"), (int)pid, strerror(errno));
	*cls = (int)(v >> IOPRIO_CLASS_SHIFT);
	*level = (int)(v & ((1 << IOPRIO_CLASS_SHIFT) - 1));
	return 0;
}

int act_set_ioprio(const struct target_id *id, int cls, int level, struct ps_error *e)
{
	pid_t pid = id->pid;
	int r = same_process(id, e);
	if (r < 0)
		return r;
	if (syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, pid, cls << IOPRIO_CLASS_SHIFT | level) < 0)
		return refused(e, errno, pid, _("set the I/O priority"),
			       _("the realtime class, and another user's process, need CAP_SYS_ADMIN / CAP_SYS_NICE (root)"));
	return 0;
}

int act_cpulist_parse(const char *s, int ncpu, cpu_set_t *set)
{
	const char *p = s;

	CPU_ZERO(set);
	while (*p) {
		char *end;
		while (*p == ' ')
			p++;
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		long a = strtol(p, &end, 10), b = a;
		p = end;
		if (*p == '-') {
			if (!isdigit((unsigned char)p[1]))
				return -EINVAL;
			b = strtol(p + 1, &end, 10);
			p = end;
		}
		if (a > b || b >= ncpu || b >= CPU_SETSIZE)
			return -EINVAL;
		for (long c = a; c <= b; c++)
			CPU_SET((int)c, set);
		while (*p == ' ')
			p++;
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	return CPU_COUNT(set) ? 0 : -EINVAL;
}

const char *act_cpulist_fmt(const cpu_set_t *set, char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE && o < size; c++) {
		if (!CPU_ISSET(c, set))
			continue;
		int d = c;
		while (d + 1 < CPU_SETSIZE && CPU_ISSET(d + 1, set))
			d++;
		o += (size_t)snprintf(buf + o, size - o, d > c ? "%s%d-%d" : "%s%d", o ? "," : "", c, d);
		c = d;
	}
	return buf;
}

int act_ioprio_parse(const char *s, int *cls, int *level)
{
	static const struct {
		const char *name;
		int cls;
	} names[] = { { "rt", ACT_IOPRIO_RT }, { "realtime", ACT_IOPRIO_RT }, { "be", ACT_IOPRIO_BE },
		      { "best-effort", ACT_IOPRIO_BE } };

	while (*s == ' ')
		s++;
	if (!strcmp(s, "idle")) {
		*cls = ACT_IOPRIO_IDLE;
		*level = 0;
		return 0;
	}
	if (!strcmp(s, "none")) {
		*cls = ACT_IOPRIO_NONE;
		*level = 0;
		return 0;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = strlen(names[i].name);
		if (strncmp(s, names[i].name, n))
			continue;
		const char *p = s + n;
		while (*p == ' ')
			p++;
		if (p[0] >= '0' && p[0] <= '7' && !p[1]) {
			*cls = names[i].cls;
			*level = p[0] - '0';
			return 0;
		}
	}
	return -EINVAL;
}

const char *act_ioprio_fmt(int cls, int level, char *buf, size_t size)
{
	switch (cls) {
	case ACT_IOPRIO_RT: snprintf(buf, size, "rt%d", level); break;
	case ACT_IOPRIO_BE: snprintf(buf, size, "be%d", level); break;
	case ACT_IOPRIO_IDLE: snprintf(buf, size, "idle"); break;
	default: snprintf(buf, size, "none"); break;
	}
	return buf;
}
