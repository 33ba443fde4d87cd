/* Names of anonymous executable code (JIT compilers): /tmp/perf-PID.map
 * (JDK's "0x..." lines and Node's bare hex alike) and jitdump files
 * (jit-PID.dump, which the runtime maps so it shows in the maps).
 *
 * Both grow while the target runs. A view polls them at most every
 * SYM_JIT_POLL_NS, and only when an anonymous pc has no name: the perf
 * map by size, mtime and inode (a grown file is read from where the last
 * read stopped; a file rewritten or replaced is read again whole), the
 * jitdump from its last complete record. A poll reads only what was
 * appended, so the sampler is not held up by a large map re-read at every
 * new function. */
#include "sym/local.h"
#include "i18n.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int range_cmp(const void *a, const void *b)
{
	const struct sym_range *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* ---- jitdump (the format of perf's jitdump specification) ---- */

#define JITDUMP_MAGIC 0x4A695444u
#define JIT_CODE_LOAD 0
#define JIT_CODE_CLOSE 3

ssize_t sym_jitdump_parse(const void *buf, size_t len, bool at_start, size_t *used, struct sym_range **out,
			  char **pool)
{
	const unsigned char *b = buf;
	size_t off = 0, n = 0, cap = 0, plen = 0;
	struct sym_range *r = NULL;
	char *p = NULL;

	*out = NULL;
	*pool = NULL;
	*used = 0;
	if (at_start) {
		uint32_t magic, version, hsize;
		if (len < 12)
			return 0;
		memcpy(&magic, b, 4);
		memcpy(&version, b + 4, 4);
		memcpy(&hsize, b + 8, 4);
		if (magic != JITDUMP_MAGIC || hsize < 12)
			return -EINVAL; /* another byte order or not a jitdump */
		if (hsize > len)
			return 0;
		off = hsize;
	}
	if (!(p = malloc(len + 1)))
		return -ENOMEM;
	while (len - off >= 16) {
		uint32_t id, tsize;
		memcpy(&id, b + off, 4);
		memcpy(&tsize, b + off + 4, 4);
		if (tsize < 16)
			break; /* broken: stop here for good (used stays put) */
		if (tsize > len - off)
			break; /* not all written yet */
		if (id == JIT_CODE_CLOSE) {
			off = len;
			break;
		}
		/* LOAD: header(16) pid tid (8) vma code_addr code_size index (32) name\0 code */
		if (id == JIT_CODE_LOAD && tsize > 16 + 8 + 32) {
			const unsigned char *rec = b + off + 16 + 8;
			uint64_t addr, size;
			memcpy(&addr, rec + 8, 8);
			memcpy(&size, rec + 16, 8);
			const char *name = (const char *)rec + 32;
			size_t room = tsize - (16 + 8 + 32), nl = strnlen(name, room);
			if (nl && nl < room && size && n < SYM_PERFMAP_MAX_ENTRIES) {
				if (sym_range_room(&r, n, &cap, 64) < 0) {
					free(r);
					free(p);
					return -ENOMEM;
				}
				r[n].start = addr;
				r[n].size = size;
				r[n].module = NULL;
				r[n].name = p + plen;
				memcpy(p + plen, name, nl + 1);
				plen += nl + 1;
				n++;
			}
		}
		off += tsize;
	}
	if (n)
		sort_array(r, n, sizeof(*r), range_cmp);
	*out = r;
	*pool = p;
	*used = off;
	return (ssize_t)n;
}

/* ---- the names of one view ---- */

/* Add ranges (sorted) after the ones known: at one start the newer entry
 * comes last, so it names the code (a JIT reuses addresses). Takes r and
 * pool. */
static int jit_add(struct sym_jit *j, struct sym_range *r, size_t n, char *pool)
{
	if (j->n + n > SYM_PERFMAP_MAX_ENTRIES)
		n = j->n < SYM_PERFMAP_MAX_ENTRIES ? SYM_PERFMAP_MAX_ENTRIES - j->n : 0;
	char **np = realloc(j->pools, (j->npools + 1) * sizeof(*np));
	if (np)
		j->pools = np;
	struct sym_range *m = np && n ? malloc((j->n + n) * sizeof(*m)) : NULL;
	if (!np || (n && !m)) {
		free(r);
		free(pool);
		return -ENOMEM;
	}
	j->pools[j->npools++] = pool;
	if (!n) {
		free(r);
		return 0;
	}
	size_t a = 0, b = 0, k = 0;
	while (a < j->n || b < n)
		m[k++] = b == n || (a < j->n && j->r[a].start <= r[b].start) ? j->r[a++] : r[b++];
	free(j->r);
	free(r);
	j->r = m;
	j->n = k;
	j->gen++;
	return 0;
}

static void jit_clear(struct sym_jit *j)
{
	for (size_t i = 0; i < j->npools; i++)
		free(j->pools[i]);
	free(j->pools);
	free(j->r);
	j->pools = NULL;
	j->npools = 0;
	j->r = NULL;
	if (j->n)
		j->gen++;
	j->n = 0;
}

void sym_jit_free(struct sym_jit *j)
{
	jit_clear(j);
}

/* Why a file the target wrote is refused. */
enum owned_why { OWNED_OK, OWNED_LINK, OWNED_NOTREG, OWNED_OTHER, OWNED_BIG };

/* Opens a file the target wrote, as perf does: a regular file (not a link,
 * a FIFO or a device) of the target's user or root, within the byte cap.
 * Looked up with O_PATH first (sym_open_regular): a FIFO does not block
 * the sampler and a device is never opened. */
static int open_owned(const char *path, uid_t uid, uint64_t cap, struct stat *sb, enum owned_why *why)
{
	int pfd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC), fd = -1;

	*why = OWNED_OK;
	if (pfd < 0)
		return -1;
	if (fstat(pfd, sb) < 0)
		*why = OWNED_NOTREG;
	else if (S_ISLNK(sb->st_mode))
		*why = OWNED_LINK;
	else if (!S_ISREG(sb->st_mode))
		*why = OWNED_NOTREG;
	else if (sb->st_uid != uid && sb->st_uid != 0)
		*why = OWNED_OTHER;
	else if ((uint64_t)sb->st_size > cap)
		*why = OWNED_BIG;
	else if ((fd = sym_reopen(pfd)) < 0 || fstat(fd, sb) < 0)
		*why = OWNED_NOTREG;
	close(pfd);
	if (*why != OWNED_OK && fd >= 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static const char *perfmap_why(enum owned_why w)
{
	switch (w) {
	case OWNED_LINK: return _("its perf map is a symbolic link: not read");
	case OWNED_NOTREG: return _("its perf map is not a regular file: not read");
	case OWNED_OTHER: return _("its perf map belongs to another user: not read");
	case OWNED_BIG: return _("its perf map is over the 64 MiB cap: not read");
	default: return NULL;
	}
}

static const char *jitdump_why(enum owned_why w)
{
	switch (w) {
	case OWNED_LINK: return _("its jitdump is a symbolic link: not read");
	case OWNED_NOTREG: return _("its jitdump is not a regular file: not read");
	case OWNED_OTHER: return _("its jitdump belongs to another user: not read");
	default: return NULL;
	}
}

/* Read [off, end) of fd (the file may change meanwhile: read, never
 * mapped). Returns the bytes read or -1. */
static ssize_t read_at(int fd, uint64_t off, uint64_t end, char **out)
{
	size_t want = end > off ? (size_t)(end - off) : 0, got = 0;
	char *buf = malloc(want + 1);

	*out = buf;
	if (!buf)
		return -1;
	while (got < want) {
		ssize_t r = pread(fd, buf + got, want - got, (off_t)(off + got));
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	buf[got] = '\0';
	return (ssize_t)got;
}

static void perfmap_poll(struct sym_jit *j, pid_t pid, uid_t uid)
{
	char path[64], *buf;
	struct stat sb;
	enum owned_why w;
	int64_t mtime;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
	int fd = open_owned(path, uid, SYM_PERFMAP_MAX_BYTES, &sb, &w);
	const char *why = perfmap_why(w);
	if (fd < 0) {
		if (j->map_seen || why)
			jit_clear(j); /* gone or refused: its old names no longer hold */
		j->map_seen = false;
		j->why = why;
		return;
	}
	mtime = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
	bool same = j->map_seen && sb.st_ino == j->map_ino && (uint64_t)sb.st_size >= j->map_size;
	if (same && (uint64_t)sb.st_size == j->map_size && mtime == j->map_mtime) {
		close(fd);
		return; /* unchanged */
	}
	/* Appended to, or rewritten in place? The bytes before the last read's
	 * end are the same when it was only appended to. */
	if (same && j->map_off >= sizeof(j->tail)) {
		char t[sizeof(j->tail)];
		same = pread(fd, t, sizeof(t), (off_t)(j->map_off - sizeof(t))) == (ssize_t)sizeof(t) &&
		       !memcmp(t, j->tail, sizeof(t));
	}
	if (!same) {
		jit_clear(j);
		j->map_off = 0;
		j->why = NULL;
	}
	j->map_seen = true;
	j->map_ino = sb.st_ino;
	j->map_size = (uint64_t)sb.st_size;
	j->map_mtime = mtime;
	ssize_t len = read_at(fd, j->map_off, (uint64_t)sb.st_size, &buf);
	if (len > 0) {
		/* Whole lines only: the runtime may be writing the last one (it
		 * is read again next time, and the newer entry wins). */
		char *nl = memrchr(buf, '\n', (size_t)len);
		struct sym_range *r;
		char *pool;
		ssize_t n = sym_perfmap_parse(buf, (size_t)len, &r, &pool);
		if (n >= 0 && jit_add(j, r, (size_t)n, pool) == 0 && j->n >= SYM_PERFMAP_MAX_ENTRIES)
			j->why = _("its perf map is over the cap of 1048576 entries: the rest not read");
		if (nl)
			j->map_off += (uint64_t)(nl + 1 - buf);
		if (j->map_off >= sizeof(j->tail))
			pread(fd, j->tail, sizeof(j->tail), (off_t)(j->map_off - sizeof(j->tail)));
	}
	free(buf);
	close(fd);
}

/* The jitdump the target mapped (perf finds it the same way): a mapping
 * of a file named jit-PID.dump. */
static void jitdump_poll(struct sym_jit *j, pid_t pid, uid_t uid, const struct proc_maps *maps, const char *root)
{
	char want[32], path[PATH_MAX], *buf = NULL;
	const char *found = NULL;
	enum owned_why w;
	struct stat sb;

	snprintf(want, sizeof(want), "jit-%d.dump", (int)pid);
	for (size_t i = 0; maps && i < maps->n && !found; i++) {
		const char *s = strrchr(maps->v[i].path, '/');
		if (s && !strcmp(s + 1, want) && !maps->v[i].deleted)
			found = maps->v[i].path;
	}
	if (!found || j->dump_broken)
		return;
	snprintf(path, sizeof(path), "%s%s", root ? root : "", found);
	int fd = open_owned(path, uid, UINT64_MAX, &sb, &w);
	j->dump_why = jitdump_why(w);
	if (fd < 0)
		return;
	if (sb.st_ino != j->dump_ino) {
		j->dump_ino = sb.st_ino;
		j->dump_off = 0;
	}
	/* The code bytes are in it too: read at most the cap at a time. */
	uint64_t end = (uint64_t)sb.st_size;
	if (end - j->dump_off > SYM_PERFMAP_MAX_BYTES && end > j->dump_off)
		end = j->dump_off + SYM_PERFMAP_MAX_BYTES;
	ssize_t len = end > j->dump_off ? read_at(fd, j->dump_off, end, &buf) : 0;
	close(fd);
	if (len <= 0) {
		free(buf);
		return;
	}
	struct sym_range *r;
	char *pool;
	size_t used;
	ssize_t n = sym_jitdump_parse(buf, (size_t)len, j->dump_off == 0, &used, &r, &pool);
	free(buf);
	if (n == -EINVAL) {
		j->dump_broken = true;
		j->dump_why = _("its jitdump is not in the jitdump format: not read");
		return;
	}
	if (n >= 0 && jit_add(j, r, (size_t)n, pool) == 0)
		j->dump_off += used;
}

void sym_jit_poll(struct sym_jit *j, pid_t pid, uid_t uid, const struct proc_maps *maps, const char *root)
{
	j->polled_ns = now_ns();
	if (pid <= 0)
		return;
	perfmap_poll(j, pid, uid);
	jitdump_poll(j, pid, uid, maps, root);
}

const char *sym_jit_name(struct sym_jit *j, uint64_t pc)
{
	const struct sym_range *r = sym_range_find(j->r, j->n, pc, true);
	return r ? r->name : NULL;
}

const char *sym_jit_why(const struct sym_jit *j)
{
	if (j->why)
		return j->why;
	if (j->dump_why)
		return j->dump_why;
	return j->map_seen || j->dump_ino ? _("not in its perf map") : _("no perf map or jitdump");
}
