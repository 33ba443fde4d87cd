/* Compressed cores (systemd-coredump's .zst, .xz and .lz4): recognised by
 * their magic bytes, decompressed as a stream into a private temporary
 * file (O_TMPFILE under $TMPDIR: never visible by name, gone when closed)
 * that the reader then maps like any core. Blocks of zeros (most of a
 * core) are left as holes; the bytes written are checked against the free
 * space of $TMPDIR as they go, and write errors (a full disk, a file size
 * limit) end it with a clear message. A stream cut short keeps what came out of it (the reader then says which
 * segments are missing), damaged data is an error. The libraries are
 * optional (configure): without one, the message names it and the command
 * that decompresses the file by hand. libzstd and liblz4 are opened (dlopen)
 * when a core compressed with them is opened, not linked: linked, they
 * would be mapped and relocated at every start of pscope (~190 KiB
 * resident in the process list) for a rare case. liblzma stays linked:
 * libdw needs it anyway. */
#include "config.h"
#include "core/read.h"
#include "i18n.h"
#include "out/save.h"
#include "util.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#ifdef HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef HAVE_LZMA
#include <lzma.h>
#endif
#ifdef HAVE_LZ4
#include <lz4frame.h>
#endif

enum { CHUNK = 128 * 1024 };

/* Caps against a compressed "bomb" (a few KB that expand without end): a
 * core is never read past the end its own ELF headers give, nor past
 * UNPACK_MAX bytes; a decompressor never takes more than UNPACK_MEM of
 * memory (zstd's default window limit is 128 MiB, xz is given this). */
#define UNPACK_MAX (64ull << 30)
#define UNPACK_MEM (256ull << 20)

#ifdef HAVE_ZSTD
static struct {
	ZSTD_DCtx *(*createDCtx)(void);
	size_t (*freeDCtx)(ZSTD_DCtx *dctx);
	size_t (*DStreamInSize)(void);
	size_t (*DStreamOutSize)(void);
	size_t (*decompressStream)(ZSTD_DCtx *zds, ZSTD_outBuffer *output, ZSTD_inBuffer *input);
	unsigned (*isError)(size_t code);
	const char *(*getErrorName)(size_t code);
} zs;
static const struct lazy_sym zs_syms[] = {
	{ "ZSTD_createDCtx", (void **)&zs.createDCtx }, { "ZSTD_freeDCtx", (void **)&zs.freeDCtx },
	{ "ZSTD_DStreamInSize", (void **)&zs.DStreamInSize }, { "ZSTD_DStreamOutSize", (void **)&zs.DStreamOutSize },
	{ "ZSTD_decompressStream", (void **)&zs.decompressStream }, { "ZSTD_isError", (void **)&zs.isError },
	{ "ZSTD_getErrorName", (void **)&zs.getErrorName }, { NULL, NULL }
};
static struct lazy_lib zs_lib = { .soname = "libzstd.so.1", .package = "libzstd1", .syms = zs_syms,
				  .lock = PTHREAD_MUTEX_INITIALIZER };
#endif

#ifdef HAVE_LZ4
static struct {
	LZ4F_errorCode_t (*createDecompressionContext)(LZ4F_dctx **dctxPtr, unsigned version);
	LZ4F_errorCode_t (*freeDecompressionContext)(LZ4F_dctx *dctx);
	size_t (*decompress)(LZ4F_dctx *dctx, void *dstBuffer, size_t *dstSizePtr, const void *srcBuffer,
			     size_t *srcSizePtr, const LZ4F_decompressOptions_t *dOptPtr);
	unsigned (*isError)(LZ4F_errorCode_t code);
	const char *(*getErrorName)(LZ4F_errorCode_t code);
} l4;
static const struct lazy_sym l4_syms[] = {
	{ "LZ4F_createDecompressionContext", (void **)&l4.createDecompressionContext },
	{ "LZ4F_freeDecompressionContext", (void **)&l4.freeDecompressionContext },
	{ "LZ4F_decompress", (void **)&l4.decompress }, { "LZ4F_isError", (void **)&l4.isError },
	{ "LZ4F_getErrorName", (void **)&l4.getErrorName }, { NULL, NULL }
};
static struct lazy_lib l4_lib = { .soname = "liblz4.so.1", .package = "liblz4-1", .syms = l4_syms,
				  .lock = PTHREAD_MUTEX_INITIALIZER };
#endif

/* The stream helpers serve whichever decompressors were built in. */
#define STREAM_HELPER static __attribute__((unused))

enum core_comp core_compression(const void *head, size_t len)
{
	static const unsigned char zstd[4] = { 0x28, 0xb5, 0x2f, 0xfd }, lz4[4] = { 0x04, 0x22, 0x4d, 0x18 },
				   xz[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };

	if (len >= 4 && !memcmp(head, zstd, 4))
		return CORE_COMP_ZSTD;
	if (len >= 4 && !memcmp(head, lz4, 4))
		return CORE_COMP_LZ4;
	if (len >= 6 && !memcmp(head, xz, 6))
		return CORE_COMP_XZ;
	return CORE_COMP_NONE;
}

const char *core_comp_name(enum core_comp k)
{
	switch (k) {
	case CORE_COMP_ZSTD: return "zstd";
	case CORE_COMP_XZ: return "xz";
	case CORE_COMP_LZ4: return "lz4";
	default: return NULL;
	}
}

/* Where the output goes, and how much it may take. */
struct sink {
	int fd;
	const char *path, *dir;    /* the compressed core, $TMPDIR (messages) */
	uint64_t written;          /* the size so far */
	uint64_t used, room;       /* bytes on disk (zero blocks are holes); what $TMPDIR may take */
	uint64_t head;             /* stop after this many bytes (0: all) */
	uint64_t end;              /* where the ELF headers say the core ends (0: not known yet) */
	uint64_t ph_end;           /* where its program headers end (0: not known yet) */
	const char *kind;          /* "zstd", ... or NULL (a copy) */
	struct ps_error *e;
};

enum { ZERO_BLOCK = 4096 };

STREAM_HELPER bool is_zero(const char *p, size_t n)
{
	return !p[0] && !memcmp(p, p + 1, n - 1);
}

STREAM_HELPER int write_failed(struct sink *s, int err)
{
	char b[32];

	return ps_error_set(s->e, err, _("decompressing %s into %s failed after %s: %s"), s->path, s->dir,
			    human_bytes(s->written, b, sizeof(b)), strerror(err));
}

STREAM_HELPER int too_large(struct sink *s, uint64_t size)
{
	char a[32], b[32];

	return ps_error_set(s->e, EFBIG,
			    _("%s: the core would be %s, over the %s cap for a core pscope copies or decompresses: "
			      "it is not read"),
			    s->path, human_bytes(size, a, sizeof(a)), human_bytes(UNPACK_MAX, b, sizeof(b)));
}

/* Read back the ELF headers written so far: the end of the core (the last
 * segment or section header table) once its program headers are in. */
STREAM_HELPER int elf_bound(struct sink *s)
{
	Elf64_Ehdr eh;

	if (s->end || s->written < sizeof(eh))
		return 0;
	if (pread(s->fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_type != ET_CORE)
		return ps_error_set(s->e, EINVAL, _("%s: the %s data is not an ELF core"), s->path,
				    s->kind ? s->kind : "ELF");
	if (eh.e_phnum == PN_XNUM || eh.e_phentsize != sizeof(Elf64_Phdr)) {
		s->end = UINT64_MAX; /* the count is elsewhere: rely on the cap */
		return 0;
	}
	s->ph_end = eh.e_phoff + (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr);
	if (s->written < s->ph_end)
		return 0;
	uint64_t end = eh.e_shnum ? eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize : s->ph_end;
	Elf64_Phdr *ph = malloc(eh.e_phnum ? eh.e_phnum * sizeof(*ph) : 1);
	if (!ph)
		return ps_error_set(s->e, ENOMEM, _("out of memory"));
	if (pread(s->fd, ph, eh.e_phnum * sizeof(*ph), (off_t)eh.e_phoff) != (ssize_t)(eh.e_phnum * sizeof(*ph))) {
		free(ph);
		return ps_error_set(s->e, errno ? errno : EIO, _("cannot read %s: %s"), s->path, strerror(errno ? errno : EIO));
	}
	for (unsigned i = 0; i < eh.e_phnum; i++)
		if (ph[i].p_offset + ph[i].p_filesz > end)
			end = ph[i].p_offset + ph[i].p_filesz;
	free(ph);
	s->end = end < s->written ? s->written : end;
	return s->end > UNPACK_MAX ? too_large(s, s->end) : 0;
}

/* 0: go on, 1: enough (head, or the end of the core), <0: error set.
 * Cores are mostly holes: a block of zeros is skipped (lseek), not
 * written. */
STREAM_HELPER int sink_put(struct sink *s, const void *buf, size_t n)
{
	const char *p = buf;
	char a[32];
	int r;

	if (s->head && s->written + n > s->head)
		n = (size_t)(s->head - s->written);
	if (s->end && s->written + n > s->end)
		n = (size_t)(s->end - s->written);
	if (s->written + n > UNPACK_MAX)
		return too_large(s, s->written + n);
	if (s->used + n > s->room)
		return ps_error_set(s->e, ENOSPC,
				    _("decompressing %s needs more than the %s free in %s: set TMPDIR to a directory "
				      "with more room (or decompress it by hand where there is)"),
				    s->path, human_bytes(s->room, a, sizeof(a)), s->dir);
	while (n) {
		size_t k = n < ZERO_BLOCK ? n : ZERO_BLOCK;
		if (k == ZERO_BLOCK && is_zero(p, k)) {
			if (lseek(s->fd, (off_t)k, SEEK_CUR) < 0)
				return write_failed(s, errno);
		} else {
			for (size_t done = 0; done < k;) {
				ssize_t w = write(s->fd, p + done, k - done);
				if (w < 0 && errno == EINTR)
					continue;
				if (w <= 0)
					return write_failed(s, w < 0 ? errno : ENOSPC);
				done += (size_t)w;
			}
			s->used += k;
		}
		p += k;
		n -= k;
		s->written += k;
		if (!s->end && (r = elf_bound(s)) < 0)
			return r;
	}
	return (s->head && s->written >= s->head) || (s->end && s->written >= s->end) ? 1 : 0;
}

STREAM_HELPER ssize_t read_in(int fd, void *buf, size_t n)
{
	ssize_t r;

	do
		r = read(fd, buf, n);
	while (r < 0 && errno == EINTR);
	return r;
}

STREAM_HELPER int damaged(struct sink *s, const char *kind, const char *why)
{
	return ps_error_set(s->e, EINVAL, _("%s: the %s data is damaged (%s): it cannot be decompressed"), s->path,
			    kind, why);
}

/* A window or dictionary over the memory cap (a bomb, or a stream
 * compressed for another machine). */
STREAM_HELPER int needs_memory(struct sink *s)
{
	char a[32];

	return ps_error_set(s->e, ENOMEM,
			    _("%s: the %s data needs more than %s of memory to decompress, the cap: it is not read "
			      "(decompress it by hand if you trust it)"),
			    s->path, s->kind, human_bytes(UNPACK_MEM, a, sizeof(a)));
}

STREAM_HELPER int read_failed(struct sink *s)
{
	return ps_error_set(s->e, errno, _("cannot read %s: %s"), s->path, strerror(errno));
}

/* A plain core its owner can change: copied as it is (holes kept). */
static int run_copy(int in, struct sink *s)
{
	char *b = malloc(CHUNK);
	int r = 0;

	if (!b)
		return ps_error_set(s->e, ENOMEM, _("out of memory"));
	for (;;) {
		ssize_t n = read_in(in, b, CHUNK);
		if (n < 0)
			r = read_failed(s);
		if (n <= 0 || (r = sink_put(s, b, (size_t)n)) != 0)
			break;
	}
	free(b);
	return r < 0 ? r : 0;
}

#ifdef HAVE_ZSTD
static int run_zstd(int in, struct sink *s, bool *cut)
{
	ZSTD_DCtx *dc = zs.createDCtx();
	size_t icap = zs.DStreamInSize(), ocap = zs.DStreamOutSize(), last = 0;
	void *ib = malloc(icap), *ob = malloc(ocap);
	bool first = true;
	int r = 0;

	if (!dc || !ib || !ob) {
		r = ps_error_set(s->e, ENOMEM, _("out of memory"));
		goto out;
	}
	for (;;) {
		ssize_t n = read_in(in, ib, icap);
		if (n < 0) {
			r = read_failed(s);
			goto out;
		}
		if (n == 0)
			break;
		first = false;
		ZSTD_inBuffer zi = { ib, (size_t)n, 0 };
		while (zi.pos < zi.size) {
			ZSTD_outBuffer zo = { ob, ocap, 0 };
			last = zs.decompressStream(dc, &zo, &zi);
			if (zs.isError(last) && strstr(zs.getErrorName(last), "memory")) {
				r = needs_memory(s);
				goto out;
			}
			if (zs.isError(last)) {
				r = damaged(s, "zstd", zs.getErrorName(last));
				goto out;
			}
			r = sink_put(s, ob, zo.pos);
			if (r)
				goto out;
		}
	}
	*cut = last != 0 || first; /* the last frame is not whole */
out:
	zs.freeDCtx(dc);
	free(ib);
	free(ob);
	return r < 0 ? r : 0;
}
#endif

#ifdef HAVE_LZMA
static int run_xz(int in, struct sink *s, bool *cut)
{
	lzma_stream z = LZMA_STREAM_INIT;
	unsigned char *ib = malloc(CHUNK), *ob = malloc(CHUNK);
	lzma_action act = LZMA_RUN;
	int r = 0;

	if (!ib || !ob || lzma_stream_decoder(&z, UNPACK_MEM, LZMA_CONCATENATED) != LZMA_OK) {
		r = ps_error_set(s->e, ENOMEM, _("out of memory"));
		goto out;
	}
	for (;;) {
		if (!z.avail_in && act == LZMA_RUN) {
			ssize_t n = read_in(in, ib, CHUNK);
			if (n < 0) {
				r = read_failed(s);
				goto out;
			}
			z.next_in = ib;
			z.avail_in = (size_t)n;
			if (!n)
				act = LZMA_FINISH;
		}
		z.next_out = ob;
		z.avail_out = CHUNK;
		lzma_ret lr = lzma_code(&z, act);
		r = sink_put(s, ob, CHUNK - z.avail_out);
		if (r)
			goto out;
		if (lr == LZMA_STREAM_END)
			break;
		if (lr == LZMA_BUF_ERROR && act == LZMA_FINISH) {
			*cut = true; /* the input ended inside the stream */
			break;
		}
		if (lr == LZMA_MEMLIMIT_ERROR) {
			r = needs_memory(s);
			goto out;
		}
		if (lr != LZMA_OK) {
			r = damaged(s, "xz", lr == LZMA_FORMAT_ERROR ? _("not an xz stream")
					     : lr == LZMA_MEM_ERROR  ? _("out of memory")
					     : lr == LZMA_DATA_ERROR ? _("corrupt data")
								     : _("unsupported options"));
			goto out;
		}
	}
out:
	lzma_end(&z);
	free(ib);
	free(ob);
	return r < 0 ? r : 0;
}
#endif

#ifdef HAVE_LZ4
static int run_lz4(int in, struct sink *s, bool *cut)
{
	LZ4F_dctx *dc = NULL;
	unsigned char *ib = malloc(CHUNK), *ob = malloc(CHUNK);
	size_t last = 1;
	int r = 0;

	if (!ib || !ob || l4.isError(l4.createDecompressionContext(&dc, LZ4F_VERSION))) {
		r = ps_error_set(s->e, ENOMEM, _("out of memory"));
		goto out;
	}
	for (;;) {
		ssize_t n = read_in(in, ib, CHUNK);
		if (n < 0) {
			r = read_failed(s);
			goto out;
		}
		if (n == 0)
			break;
		size_t off = 0;
		while (off < (size_t)n) {
			size_t osz = CHUNK, isz = (size_t)n - off;
			last = l4.decompress(dc, ob, &osz, ib + off, &isz, NULL);
			if (l4.isError(last)) {
				r = damaged(s, "lz4", l4.getErrorName(last));
				goto out;
			}
			r = sink_put(s, ob, osz);
			if (r)
				goto out;
			if (!isz && !osz)
				break; /* no progress: wait for more input */
			off += isz;
		}
	}
	*cut = last != 0;
out:
	l4.freeDecompressionContext(dc);
	free(ib);
	free(ob);
	return r < 0 ? r : 0;
}
#endif

/* The shell command that decompresses path by hand. */
static void hand_command(const char *path, enum core_comp k, char *cmd, size_t size)
{
	switch (k) {
	case CORE_COMP_ZSTD: snprintf(cmd, size, "zstd -d -o core %s", path); break;
	case CORE_COMP_XZ: snprintf(cmd, size, "xz -d -k -c %s > core", path); break;
	default: snprintf(cmd, size, "lz4 -d %s core", path); break;
	}
}

static int no_library(const char *path, enum core_comp k, struct ps_error *e)
{
	static const char *const lib[] = { "", "libzstd", "liblzma", "liblz4" };
	static const char *const pkg[] = { "", "libzstd-dev", "liblzma-dev", "liblz4-dev" };
	char cmd[4200];

	hand_command(path, k, cmd, sizeof(cmd));
	return ps_error_set(e, ENOTSUP,
			    _("%s is compressed with %s and this pscope was built without %s: decompress it by hand "
			      "(%s) and open that, or rebuild pscope with %s installed"),
			    path, core_comp_name(k), lib[k], cmd, pkg[k]);
}

static bool have_lib(enum core_comp k)
{
	switch (k) {
#ifdef HAVE_ZSTD
	case CORE_COMP_ZSTD: return true;
#endif
#ifdef HAVE_LZMA
	case CORE_COMP_XZ: return true;
#endif
#ifdef HAVE_LZ4
	case CORE_COMP_LZ4: return true;
#endif
	default: return false;
	}
}

/* Whether the library of k is there: linked, or opened now (*l: the
 * library opened, to name when it could not be). */
static bool lib_open(enum core_comp k, struct lazy_lib **l)
{
	*l = NULL;
	switch (k) {
#ifdef HAVE_ZSTD
	case CORE_COMP_ZSTD: *l = &zs_lib; break;
#endif
#ifdef HAVE_LZ4
	case CORE_COMP_LZ4: *l = &l4_lib; break;
#endif
	default: return true;
	}
	return lazy_lib_open(*l);
}

static int no_load(const char *path, enum core_comp k, const struct lazy_lib *l, struct ps_error *e)
{
	char cmd[4200];

	hand_command(path, k, cmd, sizeof(cmd));
	return ps_error_set(e, ENOTSUP,
			    _("%s is compressed with %s and %s cannot be loaded (%s): decompress it by hand (%s) "
			      "and open that, or install %s"),
			    path, core_comp_name(k), l->soname, l->why, cmd, l->package);
}

int core_unpack(int in, const char *path, enum core_comp k, uint64_t head, int *out, bool *cut, struct ps_error *e)
{
	const char *dir = getenv("TMPDIR");
	struct statvfs sv;
	int r;

	*out = -1;
	*cut = false;
	if (!dir || !*dir)
		dir = "/tmp";
	struct lazy_lib *lib;

	if (k != CORE_COMP_NONE && !have_lib(k))
		return no_library(path, k, e);
	if (k != CORE_COMP_NONE && !lib_open(k, &lib))
		return no_load(path, k, lib, e);
	/* Unnamed (gone when closed, even after SIGKILL), in a directory
	 * checked like every one pscope writes to (src/out/save.c). */
	struct ps_error se;
	int fd = out_scratch(dir, &se);
	if (fd < 0)
		return ps_error_set(e, -fd, _("cannot make a temporary file in %s to decompress %s into: %s (set TMPDIR)"),
				    dir, path, se.msg);
	/* What $TMPDIR may take: its free space, less a margin for others. */
	uint64_t room = UINT64_MAX;
	if (fstatvfs(fd, &sv) == 0) {
		uint64_t avail = (uint64_t)sv.f_bavail * sv.f_frsize;
		uint64_t margin = avail / 10 < (64u << 20) ? avail / 10 : (64u << 20);
		room = avail - margin;
	}
	struct sink s = { .fd = fd, .path = path, .dir = dir, .room = room, .head = head, .kind = core_comp_name(k),
			  .e = e };
	if (lseek(in, 0, SEEK_SET) < 0) {
		r = read_failed(&s);
		close(fd);
		return r;
	}
	switch (k) {
	case CORE_COMP_NONE: r = run_copy(in, &s); break;
#ifdef HAVE_ZSTD
	case CORE_COMP_ZSTD: r = run_zstd(in, &s, cut); break;
#endif
#ifdef HAVE_LZMA
	case CORE_COMP_XZ: r = run_xz(in, &s, cut); break;
#endif
#ifdef HAVE_LZ4
	case CORE_COMP_LZ4: r = run_lz4(in, &s, cut); break;
#endif
	default: r = no_library(path, k, e); break;
	}
	if (r == 0 && !s.written)
		r = ps_error_set(e, EINVAL, _("%s: the %s data holds nothing"), path, s.kind ? s.kind : "ELF");
	/* A hole at the end needs the size set. */
	if (r == 0 && ftruncate(fd, (off_t)s.written) < 0)
		r = write_failed(&s, errno);
	if (r < 0) {
		close(fd);
		return r;
	}
	*out = fd;
	return 0;
}
