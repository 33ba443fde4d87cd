#include "proc/cmdline.h"
#include "util.h"

#include <stdlib.h>

size_t proc_cmdline_parse(const char *buf, size_t len, char *out, size_t outsz)
{
	size_t n;

	if (!outsz)
		return 0;
	while (len > 0 && buf[len - 1] == '\0')
		len--;
	n = len < outsz - 1 ? len : outsz - 1;
	for (size_t i = 0; i < n; i++)
		out[i] = buf[i] ? buf[i] : ' ';
	out[n] = '\0';
	return n;
}

ssize_t proc_nul_list_read_at(int dfd, const char *file, char sep, char **out)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n = read_file_alloc_at(dfd, file, &buf, &cap);

	*out = NULL;
	if (n < 0) {
		free(buf);
		return n;
	}
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = sep;
	buf[n] = '\0';
	*out = buf;
	return n;
}
