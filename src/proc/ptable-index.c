/* The process table's indexes: uid -> user name (cached), pid -> row
 * (open addressing, also a snapshot's). */
#include "proc/ptable-priv.h"
#include "util.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- users ---- */

const char *ptable_user_name_(struct ptable *pt, uid_t uid)
{
	for (size_t i = 0; i < pt->nusers; i++)
		if (pt->users[i]->uid == uid)
			return pt->users[i]->name;
	struct user_ent *u = calloc(1, sizeof(*u));
	struct user_ent **nu = realloc(pt->users, (pt->nusers + 1) * sizeof(*nu));
	if (!u || !nu) {
		free(u);
		if (nu)
			pt->users = nu;
		return "?";
	}
	pt->users = nu;
	u->uid = uid;
	struct passwd pw, *res = NULL;
	char buf[4096];
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) == 0 && res)
		strlcpy_ps(u->name, res->pw_name, sizeof(u->name));
	else
		snprintf(u->name, sizeof(u->name), "%u", (unsigned)uid);
	pt->users[pt->nusers++] = u;
	return u->name;
}

/* ---- the pid -> row index ---- */

static size_t hslot(const struct pid_index *ix, pid_t pid)
{
	return ((uint32_t)pid * 2654435761u) & (ix->cap - 1);
}

int pid_index_build(struct pid_index *ix, const struct proc_row *rows, size_t n)
{
	size_t want = 1024;
	while (want < n * 2 + 16)
		want *= 2;
	if (want != ix->cap) {
		int *h = realloc(ix->slot, want * sizeof(*h));
		if (!h)
			return -ENOMEM;
		ix->slot = h;
		ix->cap = want;
	}
	memset(ix->slot, 0, ix->cap * sizeof(*ix->slot));
	for (size_t i = 0; i < n; i++) {
		size_t s = hslot(ix, rows[i].pid);
		while (ix->slot[s])
			s = (s + 1) & (ix->cap - 1);
		ix->slot[s] = (int)i + 1;
	}
	return 0;
}

long pid_index_find(const struct pid_index *ix, const struct proc_row *rows, pid_t pid)
{
	if (!ix->cap)
		return -1;
	for (size_t s = hslot(ix, pid); ix->slot[s]; s = (s + 1) & (ix->cap - 1))
		if (rows[ix->slot[s] - 1].pid == pid)
			return ix->slot[s] - 1;
	return -1;
}

int pid_index_add(struct pid_index *ix, const struct proc_row *rows, size_t n, size_t idx)
{
	if (n * 2 > ix->cap)
		return pid_index_build(ix, rows, n); /* n already counts idx */
	size_t s = hslot(ix, rows[idx].pid);
	while (ix->slot[s])
		s = (s + 1) & (ix->cap - 1);
	ix->slot[s] = (int)idx + 1;
	return 0;
}

void pid_index_free(struct pid_index *ix)
{
	free(ix->slot);
	ix->slot = NULL;
	ix->cap = 0;
}
