/* The process table's indexes: uid -> user name (cached), pid -> row
 * (open addressing). Shared by ptable.c and ptable-order.c. */
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

/* ---- the pid -> row hash ---- */

static size_t hslot(const struct ptable *pt, pid_t pid)
{
	return ((uint32_t)pid * 2654435761u) & (pt->hcap - 1);
}

int ptable_hash_rebuild_(struct ptable *pt)
{
	size_t want = 1024;
	while (want < pt->n * 2 + 16)
		want *= 2;
	if (want != pt->hcap) {
		int *h = realloc(pt->hash, want * sizeof(*h));
		if (!h)
			return -ENOMEM;
		pt->hash = h;
		pt->hcap = want;
	}
	memset(pt->hash, 0, pt->hcap * sizeof(*pt->hash));
	for (size_t i = 0; i < pt->n; i++) {
		size_t s = hslot(pt, pt->rows[i].pid);
		while (pt->hash[s])
			s = (s + 1) & (pt->hcap - 1);
		pt->hash[s] = (int)i + 1;
	}
	return 0;
}

long ptable_hash_find_(const struct ptable *pt, pid_t pid)
{
	if (!pt->hcap)
		return -1;
	for (size_t s = hslot(pt, pid); pt->hash[s]; s = (s + 1) & (pt->hcap - 1))
		if (pt->rows[pt->hash[s] - 1].pid == pid)
			return pt->hash[s] - 1;
	return -1;
}

int ptable_hash_add_(struct ptable *pt, size_t idx)
{
	if ((pt->n + 1) * 2 > pt->hcap)
		return ptable_hash_rebuild_(pt); /* n already counts idx */
	size_t s = hslot(pt, pt->rows[idx].pid);
	while (pt->hash[s])
		s = (s + 1) & (pt->hcap - 1);
	pt->hash[s] = (int)idx + 1;
	return 0;
}
