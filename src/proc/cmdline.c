#include "proc/cmdline.h"

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
