#include "proc/rollup.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *key, *json;
} names[RU_COUNT] = {
	[RU_RSS] = { "Rss", "rss_kb" },
	[RU_PSS] = { "Pss", "pss_kb" },
	[RU_PSS_DIRTY] = { "Pss_Dirty", "pss_dirty_kb" },
	[RU_PSS_ANON] = { "Pss_Anon", "pss_anon_kb" },
	[RU_PSS_FILE] = { "Pss_File", "pss_file_kb" },
	[RU_PSS_SHMEM] = { "Pss_Shmem", "pss_shmem_kb" },
	[RU_SHARED_CLEAN] = { "Shared_Clean", "shared_clean_kb" },
	[RU_SHARED_DIRTY] = { "Shared_Dirty", "shared_dirty_kb" },
	[RU_PRIVATE_CLEAN] = { "Private_Clean", "private_clean_kb" },
	[RU_PRIVATE_DIRTY] = { "Private_Dirty", "private_dirty_kb" },
	[RU_REFERENCED] = { "Referenced", "referenced_kb" },
	[RU_ANONYMOUS] = { "Anonymous", "anonymous_kb" },
	[RU_KSM] = { "KSM", "ksm_kb" }, /* merged by KSM (Linux 6.4) */
	[RU_LAZYFREE] = { "LazyFree", "lazyfree_kb" },
	[RU_ANON_HUGE] = { "AnonHugePages", "anon_huge_pages_kb" },
	[RU_SHMEM_PMD] = { "ShmemPmdMapped", "shmem_pmd_mapped_kb" },
	[RU_FILE_PMD] = { "FilePmdMapped", "file_pmd_mapped_kb" },
	[RU_SHARED_HUGETLB] = { "Shared_Hugetlb", "shared_hugetlb_kb" },
	[RU_PRIVATE_HUGETLB] = { "Private_Hugetlb", "private_hugetlb_kb" },
	[RU_SWAP] = { "Swap", "swap_kb" },
	[RU_SWAP_PSS] = { "SwapPss", "swap_pss_kb" },
	[RU_LOCKED] = { "Locked", "locked_kb" },
};

const char *proc_rollup_key(enum proc_rollup_field f)
{
	return (unsigned)f < RU_COUNT ? names[f].key : "?";
}

const char *proc_rollup_json(enum proc_rollup_field f)
{
	return (unsigned)f < RU_COUNT ? names[f].json : "?";
}

int proc_rollup_parse(const char *buf, size_t len, struct proc_rollup *out)
{
	const char *p = buf, *end = buf + len;
	int seen = 0;

	for (int i = 0; i < RU_COUNT; i++)
		out->kb[i] = -1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *colon = memchr(p, ':', (size_t)(le - p));
		if (colon) {
			size_t kl = (size_t)(colon - p);
			for (int i = 0; i < RU_COUNT; i++) {
				if (strlen(names[i].key) == kl && !memcmp(names[i].key, p, kl)) {
					char num[32];
					const char *v = colon + 1;
					while (v < le && *v == ' ')
						v++;
					size_t nlen = (size_t)(le - v) < sizeof(num) - 1 ? (size_t)(le - v) : sizeof(num) - 1;
					memcpy(num, v, nlen);
					num[nlen] = '\0';
					out->kb[i] = strtol(num, NULL, 10);
					seen++;
					break;
				}
			}
		}
		p = le + 1;
	}
	return seen ? 0 : -EINVAL;
}

int proc_rollup_read(int dirfd, struct proc_rollup *out)
{
	char buf[4096];
	ssize_t n = read_file_at(dirfd, "smaps_rollup", buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	if (n == 0)
		return -ENODATA; /* kernel thread or exited: no address space */
	return proc_rollup_parse(buf, (size_t)n, out);
}
