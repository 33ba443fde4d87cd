#include "proc/io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int proc_io_parse(const char *buf, size_t len, struct proc_io *out)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "rchar", offsetof(struct proc_io, rchar) },
		{ "wchar", offsetof(struct proc_io, wchar) },
		{ "syscr", offsetof(struct proc_io, syscr) },
		{ "syscw", offsetof(struct proc_io, syscw) },
		{ "read_bytes", offsetof(struct proc_io, read_bytes) },
		{ "write_bytes", offsetof(struct proc_io, write_bytes) },
		{ "cancelled_write_bytes", offsetof(struct proc_io, cancelled_write_bytes) },
	};
	const char *p = buf, *end = buf + len;
	unsigned seen = 0;

	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *colon;
		const char *eol = nl ? nl : end;
		colon = memchr(p, ':', (size_t)(eol - p));
		if (colon) {
			char num[32];
			size_t klen = (size_t)(colon - p), nlen = (size_t)(eol - colon - 1);
			if (nlen >= sizeof(num))
				nlen = sizeof(num) - 1;
			memcpy(num, colon + 1, nlen);
			num[nlen] = '\0';
			for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
				if (strlen(keys[i].key) == klen && !memcmp(p, keys[i].key, klen)) {
					char *e;
					unsigned long long v = strtoull(num, &e, 10);
					if (e != num) {
						*(unsigned long long *)((char *)out + keys[i].off) = v;
						seen |= 1u << i;
					}
				}
		}
		p = eol + 1;
	}
	return (seen & (1u << 4 | 1u << 5)) == (1u << 4 | 1u << 5) ? 0 : -EINVAL;
}
