/* What a dump would do, before it does it: the mapping table and the
 * filter from /proc, the size estimate, the free space at the destination,
 * and the method chosen (fork, stop or copy) with the reason. The writer
 * calls the same functions, so the confirm screen's estimate and method are
 * those of the dump that follows. */
#include "core/cw.h"
#include "doors/doors.h"
#include "i18n.h"
#include "util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

int cw_read_smaps(struct target *t, struct core_maps *m, struct ps_error *e)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n = read_file_alloc_at(t->dirfd, "smaps", &buf, &cap);
	int r;

	if (n < 0) {
		free(buf);
		char what[64];
		snprintf(what, sizeof(what), _("read the memory map (/proc/%d/smaps)"), (int)t->id.pid);
		return door_refused(e, PS_OP_CORE, t->id.pid, (int)-n, what);
	}
	r = core_maps_parse(buf, (size_t)n, m);
	free(buf);
	if (r < 0)
		return ps_error_set(e, -r, _("cannot parse /proc/%d/smaps"), (int)t->id.pid);
	return 0;
}

unsigned cw_read_filter(struct target *t)
{
	char buf[32];

	if (read_file_at(t->dirfd, "coredump_filter", buf, sizeof(buf)) <= 0)
		return CORE_FILTER_DEFAULT;
	return (unsigned)strtoul(buf, NULL, 16);
}

/* Bytes of header, phdrs and notes before the memory data. */
static uint64_t header_estimate(size_t nmaps, unsigned threads, uint64_t page)
{
	uint64_t h = sizeof(Elf64_Ehdr) + (nmaps + 1 + EXTRA_SEGS) * sizeof(Elf64_Phdr);
	h += threads * 4096u + 64 * 1024u + nmaps * 128u; /* registers, xstate, NT_FILE */
	return (h + page - 1) / page * page;
}

void cw_estimate_from(const struct core_maps *m, unsigned threads, uint64_t page, struct core_estimate *est)
{
	uint64_t hdr = header_estimate(m->n, threads, page);

	est->bytes = hdr;
	est->disk_bytes = hdr;
	est->mappings = 0;
	for (size_t i = 0; i < m->n; i++) {
		if (m->v[i].how == CORE_DUMP_OMIT)
			continue;
		est->mappings++;
		est->bytes += core_map_dump_bytes(&m->v[i], page);
		est->disk_bytes += core_map_disk_bytes(&m->v[i], page);
	}
}

int cw_free_space(const char *dir, uint64_t *out, struct ps_error *e)
{
	struct statvfs vfs;

	if (statvfs(dir, &vfs) < 0)
		return cw_fs_error(e, errno, _("choose another destination (-o FILE)"), _("cannot check the free space in %s"),
				dir);
	/* A directory nobody may write to is refused for that, not for the
	 * space it lacks (a read-only filesystem shows little or none free). */
	if (vfs.f_flag & ST_RDONLY)
		return door_file_refused(e, dir, EROFS, _("create a file in"));
	if (faccessat(AT_FDCWD, dir, W_OK, AT_EACCESS) < 0 && (errno == EACCES || errno == EPERM || errno == EROFS))
		return door_file_refused(e, dir, errno, _("create a file in"));
	*out = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	return 0;
}

unsigned cw_thread_count(struct target *t)
{
	char buf[4096];
	char *p;

	if (read_file_at(t->dirfd, "status", buf, sizeof(buf)) <= 0 || !(p = strstr(buf, "\nThreads:")))
		return 1;
	return (unsigned)strtoul(p + 9, NULL, 10);
}

int core_estimate(pid_t pid, const struct target_id *want, const struct core_opts *o, struct core_estimate *est,
		  struct ps_error *e)
{
	struct cw c;
	struct core_result res;
	char dir[PATH_MAX], base[NAME_MAX + 1];
	int r;

	memset(est, 0, sizeof(*est));
	memset(&c, 0, sizeof(c));
	memset(&res, 0, sizeof(res));
	c.pid = pid;
	c.o = o;
	c.res = &res;
	c.e = e;
	c.page = (uint64_t)sysconf(_SC_PAGESIZE);
	if ((r = target_open(&c.t, pid, want, e)) < 0)
		return r;
	r = core_dest_split(o->path, c.t.comm, pid, dir, sizeof(dir), base, sizeof(base), e);
	if (r == 0)
		r = cw_read_smaps(&c.t, &c.maps, e);
	if (r < 0) {
		target_close(&c.t);
		return r;
	}
	core_maps_decide(&c.maps, cw_read_filter(&c.t), o->all_mappings);
	est->threads = cw_thread_count(&c.t);
	cw_estimate_from(&c.maps, est->threads, c.page, est);
	/* The method the dump would use now, and why. */
	if (cw_choose(&c, est) == 0) {
		est->method = c.method;
		strlcpy_ps(est->method_why, res.method_why, sizeof(est->method_why));
	} else {
		est->method = CORE_METHOD_AUTO;
		strlcpy_ps(est->method_why, e ? e->msg : "", sizeof(est->method_why));
		ps_error_clear(e);
	}
	snap_free(&c);
	core_maps_free(&c.maps);
	target_close(&c.t);
	if (snprintf(est->path, sizeof(est->path), "%s/%s", dir, base) >= (int)sizeof(est->path))
		return cw_fs_error(e, ENAMETOOLONG, NULL, _("destination too long"));
	return cw_free_space(dir, &est->free_bytes, e);
}

/* ---- choosing the method ---- */

int cw_forced_fork_error(struct cw *c, const char *why)
{
	ps_error_set(c->e, EAGAIN, _("no fork snapshot of process %d: %s (no file written, the process runs on)"),
		     (int)c->pid, why);
	if (c->e)
		strlcpy_ps(c->e->fix, _("use --method stop or --method copy, or leave the choice to pscope"),
			   sizeof(c->e->fix));
	return -EAGAIN;
}

/* The copy method keeps the whole core in RAM: only when it fits. */
static bool copy_fits(uint64_t disk_bytes)
{
	uint64_t avail = cw_mem_available();
	return disk_bytes + (16u << 20) <= avail / 4 && disk_bytes <= (1ull << 30);
}

int cw_choose(struct cw *c, const struct core_estimate *est)
{
	char why[sizeof(c->res->method_why)];
	enum core_method m = c->o->method;

	why[0] = '\0';
	if (m == CORE_METHOD_AUTO || m == CORE_METHOD_FORK) {
#if defined(__x86_64__)
		if (snap_check(c, why, sizeof(why)) == 0) {
			c->method = CORE_METHOD_FORK;
			strlcpy_ps(c->res->method_why, why, sizeof(c->res->method_why)); /* a note, if any */
			return 0;
		}
#else
		snprintf(why, sizeof(why), _("the fork snapshot is implemented for x86-64 only"));
#endif
		if (m == CORE_METHOD_FORK)
			return cw_forced_fork_error(c, why);
		m = copy_fits(est->disk_bytes) ? CORE_METHOD_COPY : CORE_METHOD_STOP;
	}
	c->method = m;
	strlcpy_ps(c->res->method_why, why, sizeof(c->res->method_why));
	return 0;
}
