/* Source files named by the line tables, read for their text: the file is
 * another user's as often as not (the target's own source), so it is read
 * through sym_file_stable() (a sealed copy unless only root can change
 * it), never followed into a FIFO or device, and capped at SYM_SRC_MAX
 * bytes. The text is hostile: callers escape what they print. */
#include "sym/sym.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct sym_src {
	char *text;
	size_t len;
	size_t nlines;
	size_t *start; /* offset of each line's first byte */
};

size_t sym_src_index(const char *text, size_t len, size_t *start, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < len && n < max; i++) {
		if (i == 0 || text[i - 1] == '\n')
			start[n++] = i;
	}
	return n;
}

int sym_src_open(const char *path, struct sym_src **out)
{
	struct sym_src *f;
	struct stat st = { 0 };
	int fd = sym_open_regular(AT_FDCWD, path);

	*out = NULL;
	if (fd < 0)
		return fd;
	fd = sym_file_stable(fd);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || (uint64_t)st.st_size > SYM_SRC_MAX) {
		int r = (uint64_t)st.st_size > SYM_SRC_MAX ? -EFBIG : -errno;
		close(fd);
		return r;
	}
	f = calloc(1, sizeof(*f));
	if (!f || !(f->text = malloc((size_t)st.st_size + 1))) {
		free(f);
		close(fd);
		return -ENOMEM;
	}
	while (f->len < (size_t)st.st_size) {
		ssize_t n = pread(fd, f->text + f->len, (size_t)st.st_size - f->len, (off_t)f->len);
		if (n <= 0)
			break; /* a trusted file cut meanwhile: what was read */
		f->len += (size_t)n;
	}
	close(fd);
	f->text[f->len] = 0;
	f->start = malloc((f->len + 1) * sizeof(*f->start));
	if (!f->start) {
		sym_src_free(f);
		return -ENOMEM;
	}
	f->nlines = sym_src_index(f->text, f->len, f->start, f->len + 1);
	*out = f;
	return 0;
}

const char *sym_src_line(const struct sym_src *f, int line, size_t *len)
{
	if (!f || line < 1 || (size_t)line > f->nlines)
		return NULL;
	size_t a = f->start[line - 1], b = a;
	while (b < f->len && f->text[b] != '\n')
		b++;
	if (b > a && f->text[b - 1] == '\r')
		b--;
	*len = b - a;
	return f->text + a;
}

void sym_src_free(struct sym_src *f)
{
	if (!f)
		return;
	free(f->text);
	free(f->start);
	free(f);
}
