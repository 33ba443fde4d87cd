/* The process table's indexes: uid -> user name (cached), pid -> row
 * (the one hash table, src/hmap.c). Shared by ptable.c and ptable-order.c. */
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

/* ---- the pid -> row hash (src/hmap.c) ---- */

/* The first row of pid: a row of that pid already there keeps its slot. */
static int hash_put(struct ptable *pt, size_t idx)
{
	pid_t pid = pt->rows[idx].pid;

	if (ptable_hash_find_(pt, pid) >= 0)
		return 0;
	return hmap_put(&pt->hash, (uint64_t)(uint32_t)pid, idx);
}

int ptable_hash_rebuild_(struct ptable *pt)
{
	hmap_clear(&pt->hash);
	for (size_t i = 0; i < pt->n; i++)
		if (hash_put(pt, i) < 0)
			return -ENOMEM;
	return 0;
}

long ptable_hash_find_(const struct ptable *pt, pid_t pid)
{
	uint64_t i = hmap_get(&pt->hash, (uint64_t)(uint32_t)pid);
	/* A row added before its pid was set is found after the next rebuild. */
	return i != HMAP_NONE && pt->rows[i].pid == pid ? (long)i : -1;
}

int ptable_hash_add_(struct ptable *pt, size_t idx)
{
	return hash_put(pt, idx);
}
