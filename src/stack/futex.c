/* The lock a live thread waits on in futex(), for the threads pane and
 * `pscope show`: the same owner rule (stk_lock_owner) and the same symbol
 * names (sym_data_name) as the stack dump's deadlock analysis, read from a
 * running process instead of a frozen one. */
#include "stack/stack.h"
#include "stack/internal.h"
#include "i18n.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#define FUTEX_CMD_MASK 0x7f

int stk_wait_lock(pid_t pid, int dirfd, struct sym_proc *syms, long nr, const unsigned long long args[6],
		  struct stk_wait_lock *out)
{
	uint32_t w[5];
	struct iovec l = { w, sizeof(w) }, r;

	memset(out, 0, sizeof(*out));
	if (nr != SYS_futex)
		return -ENOENT;
	out->addr = args[0];
	/* The words move while the process runs: a glimpse, as good as the
	 * moment it was read (a held lock's owner does not change). */
	r = (struct iovec){ (void *)(uintptr_t)out->addr, sizeof(w) };
	ssize_t got = process_vm_readv(pid, &l, 1, &r, 1, 0);
	/* Read by PID: still the process of dirfd after the read, so the
	 * PID was not reused meanwhile (a live process keeps its PID). */
	int fd = openat(dirfd, "stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ESRCH;
	close(fd);
	if (got == (ssize_t)sizeof(w))
		out->owner = stk_lock_owner((int)(args[1] & FUTEX_CMD_MASK), w);
	if (syms) {
		char *name = sym_data_name(syms, out->addr);
		if (name)
			snprintf(out->name, sizeof(out->name), "%s", name);
		free(name);
	}
	if (got < 0)
		return -errno;
	return 0;
}

char *stk_lock_str(uint64_t addr, const char *name, char *buf, size_t size)
{
	if (name && name[0])
		snprintf(buf, size, "%s (0x%llx)", name, (unsigned long long)addr);
	else
		snprintf(buf, size, "0x%llx", (unsigned long long)addr);
	return buf;
}

char *stk_wait_lock_str(const struct stk_wait_lock *l, char *buf, size_t size)
{
	size_t n = strlen(stk_lock_str(l->addr, l->name, buf, size));
	if (l->owner && n + 1 < size)
		snprintf(buf + n, size - n, _(" held by TID %d"), (int)l->owner);
	return buf;
}
