#include "proc/status.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum fkind { F_LONG_KB, F_PID, F_UIDS, F_GIDS, F_CAP, F_INT, F_ULONG, F_STR, F_STATE, F_NSPID };

struct field {
	const char *key;
	enum fkind kind;
	size_t off;
	size_t size;
};

#define F(k, kind, member) { k, kind, offsetof(struct proc_status, member), sizeof(((struct proc_status *)0)->member) }

static const struct field fields[] = {
	F("Name", F_STR, name),
	F("State", F_STATE, state),
	F("Tgid", F_PID, tgid),
	F("Pid", F_PID, pid),
	F("PPid", F_PID, ppid),
	F("TracerPid", F_PID, tracer_pid),
	F("Uid", F_UIDS, uid_real),
	F("Gid", F_GIDS, gid_real),
	F("Threads", F_INT, threads),
	F("VmPeak", F_LONG_KB, vm_peak),
	F("VmSize", F_LONG_KB, vm_size),
	F("VmHWM", F_LONG_KB, vm_hwm),
	F("VmRSS", F_LONG_KB, vm_rss),
	F("RssAnon", F_LONG_KB, rss_anon),
	F("RssFile", F_LONG_KB, rss_file),
	F("RssShmem", F_LONG_KB, rss_shmem),
	F("VmSwap", F_LONG_KB, vm_swap),
	F("VmData", F_LONG_KB, vm_data),
	F("VmStk", F_LONG_KB, vm_stk),
	F("VmExe", F_LONG_KB, vm_exe),
	F("VmLib", F_LONG_KB, vm_lib),
	F("VmPTE", F_LONG_KB, vm_pte),
	F("VmLck", F_LONG_KB, vm_lck),
	F("CapInh", F_CAP, cap_inh),
	F("CapPrm", F_CAP, cap_prm),
	F("CapEff", F_CAP, cap_eff),
	F("CapBnd", F_CAP, cap_bnd),
	F("CapAmb", F_CAP, cap_amb),
	F("NoNewPrivs", F_INT, no_new_privs),
	F("Seccomp", F_INT, seccomp),
	F("Seccomp_filters", F_INT, seccomp_filters),
	F("Cpus_allowed_list", F_STR, cpus_allowed_list),
	F("voluntary_ctxt_switches", F_ULONG, voluntary_ctxt),
	F("nonvoluntary_ctxt_switches", F_ULONG, nonvoluntary_ctxt),
	F("NSpid", F_NSPID, nspid),
};

static void set_field(struct proc_status *out, const struct field *f, const char *v, size_t vlen)
{
	char *base = (char *)out + f->off;
	char tmp[256];

	size_t l = copy_cstr(tmp, sizeof(tmp), v, vlen);
	switch (f->kind) {
	case F_STR: {
		size_t n = l < f->size - 1 ? l : f->size - 1;
		memcpy(base, tmp, n);
		base[n] = '\0';
		break;
	}
	case F_STATE:
		*base = tmp[0];
		break;
	case F_PID:
		*(pid_t *)base = (pid_t)strtol(tmp, NULL, 10);
		break;
	case F_INT:
		if (f->size == sizeof(long))
			*(long *)base = strtol(tmp, NULL, 10);
		else
			*(int *)base = (int)strtol(tmp, NULL, 10);
		break;
	case F_ULONG:
		*(unsigned long *)base = strtoul(tmp, NULL, 10);
		break;
	case F_LONG_KB:
		*(long *)base = strtol(tmp, NULL, 10);
		break;
	case F_CAP:
		*(uint64_t *)base = strtoull(tmp, NULL, 16);
		break;
	case F_UIDS:
		sscanf(tmp, "%u %u %u %u", &out->uid_real, &out->uid_eff, &out->uid_saved, &out->uid_fs);
		break;
	case F_GIDS:
		sscanf(tmp, "%u %u %u %u", &out->gid_real, &out->gid_eff, &out->gid_saved, &out->gid_fs);
		break;
	case F_NSPID: {
		const char *q = tmp;
		char *e;
		out->nspid_n = 0;
		while (out->nspid_n < (int)ARRAY_SIZE(out->nspid)) {
			long id = strtol(q, &e, 10);
			if (e == q || id <= 0 || id > INT32_MAX)
				break;
			out->nspid[out->nspid_n++] = (pid_t)id;
			q = e;
		}
		break;
	}
	}
}

int proc_status_parse(const char *buf, size_t len, struct proc_status *out)
{
	const char *p = buf, *end = buf + len;
	int seen = 0;

	memset(out, 0, sizeof(*out));
	out->vm_peak = out->vm_size = out->vm_hwm = out->vm_rss = out->rss_anon = out->rss_file =
		out->rss_shmem = out->vm_swap = out->vm_data = out->vm_stk = out->vm_exe = out->vm_lib =
			out->vm_pte = out->vm_lck = -1;
	out->no_new_privs = out->seccomp = -1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *colon = memchr(p, ':', (size_t)(le - p));
		if (colon) {
			size_t klen = (size_t)(colon - p);
			const char *v = colon + 1;
			while (v < le && (*v == ' ' || *v == '\t'))
				v++;
			for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
				if (strlen(fields[i].key) == klen && !memcmp(fields[i].key, p, klen)) {
					set_field(out, &fields[i], v, (size_t)(le - v));
					seen++;
					break;
				}
			}
		}
		p = le + 1;
	}
	return seen ? 0 : -EINVAL;
}

int proc_status_read(int dirfd, struct proc_status *out)
{
	char buf[4096];
	ssize_t n = read_file_at(dirfd, "status", buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return proc_status_parse(buf, (size_t)n, out);
}
