/* The process table's indexes: uid -> user name (cached), pid -> row
 * (on the one hash table, also a snapshot's). */
#include "proc/ptable-priv.h"
#include "util.h"

#include <errno.h>
#include <stdatomic.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- users ---- */

struct ptable_users *ptable_users_get(struct ptable *pt)
{
	atomic_fetch_add(&pt->users->refs, 1);
	return pt->users;
}

void ptable_users_put(struct ptable_users *u)
{
	if (!u || atomic_fetch_sub(&u->refs, 1) != 1)
		return;
	for (size_t i = 0; i < u->n; i++)
		free(u->v[i]);
	free(u->v);
	free(u);
}

struct ptable_users *ptable_users_new(void)
{
	struct ptable_users *u = calloc(1, sizeof(*u));

	if (u)
		atomic_init(&u->refs, 1);
	return u;
}

const char *ptable_users_add(struct ptable_users *us, uid_t uid, const char *name)
{
	for (size_t i = 0; i < us->n; i++)
		if (us->v[i]->uid == uid)
			return us->v[i]->name;
	struct user_ent *u = calloc(1, sizeof(*u));
	struct user_ent **nu = realloc(us->v, (us->n + 1) * sizeof(*nu));
	if (nu)
		us->v = nu;
	if (!u || !nu) {
		free(u);
		return NULL;
	}
	u->uid = uid;
	strlcpy_ps(u->name, name, sizeof(u->name));
	us->v[us->n++] = u;
	return u->name;
}

struct proc_row *proc_row_alloc(void)
{
	return ptable_row_new_();
}

const char *ptable_user_name_(struct ptable *pt, uid_t uid)
{
	struct ptable_users *us = pt->users;

	for (size_t i = 0; i < us->n; i++)
		if (us->v[i]->uid == uid)
			return us->v[i]->name;
	/* The entries never move (snapshots point at their names); only
	 * the array of them grows, which only the table reads. */
	struct user_ent *u = calloc(1, sizeof(*u));
	struct user_ent **nu = realloc(us->v, (us->n + 1) * sizeof(*nu));
	if (!u || !nu) {
		free(u);
		if (nu)
			us->v = nu;
		return "?";
	}
	us->v = nu;
	u->uid = uid;
	struct passwd pw, *res = NULL;
	char buf[4096];
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) == 0 && res)
		strlcpy_ps(u->name, res->pw_name, sizeof(u->name));
	else
		snprintf(u->name, sizeof(u->name), "%u", (unsigned)uid);
	us->v[us->n++] = u;
	return u->name;
}

/* ---- the pid -> row index (src/hmap.c) ---- */

int pid_index_add(struct pid_index *ix, const struct proc_row *const *rows, size_t n, size_t idx)
{
	(void)n;
	uint64_t key = (uint64_t)(uint32_t)rows[idx]->pid;
	if (hmap_get(&ix->map, key) != HMAP_NONE)
		return 0;
	return hmap_put(&ix->map, key, idx);
}

int pid_index_build(struct pid_index *ix, const struct proc_row *const *rows, size_t n)
{
	hmap_clear(&ix->map);
	for (size_t i = 0; i < n; i++)
		if (pid_index_add(ix, rows, n, i) < 0)
			return -ENOMEM;
	return 0;
}

long pid_index_find(const struct pid_index *ix, const struct proc_row *const *rows, pid_t pid)
{
	uint64_t i = hmap_get(&ix->map, (uint64_t)(uint32_t)pid);
	return i != HMAP_NONE && rows[i]->pid == pid ? (long)i : -1;
}

void pid_index_free(struct pid_index *ix)
{
	hmap_free(&ix->map);
}

/* ---- rows ---- */

static void obj_free(struct ptable_obj *o)
{
	free(o->row.cmdline);
	if (o->row.x)
		free(o->row.x->cgroup);
	free(o->row.x);
	free(o);
}

const struct proc_row *proc_row_get(const struct proc_row *r)
{
	atomic_fetch_add(&ptable_obj_(r)->refs, 1);
	return r;
}

void proc_row_put(const struct proc_row *r)
{
	struct ptable_obj *o = r ? ptable_obj_(r) : NULL;

	if (o && atomic_fetch_sub(&o->refs, 1) == 1)
		obj_free(o);
}

struct proc_row *ptable_mut_(struct ptable *pt, size_t idx)
{
	struct ptable_obj *o = ptable_obj_(pt->rows[idx]), *c;

	/* Alone: no snapshot holds it, and none can take it meanwhile (only
	 * this thread makes snapshots). */
	if (atomic_load(&o->refs) == 1)
		return &o->row;
	if (!(c = malloc(sizeof(*c))))
		return NULL;
	c->p = o->p;
	c->row = o->row;
	atomic_init(&c->refs, 1);
	c->row.cmdline = o->row.cmdline ? strdup(o->row.cmdline) : NULL;
	if (o->row.cmdline && !c->row.cmdline)
		c->row.cmdline_cut = false; /* out of memory: no command line */
	if (o->row.x && (c->row.x = malloc(sizeof(*c->row.x)))) {
		*c->row.x = *o->row.x;
		c->row.x->cgroup = o->row.x->cgroup ? strdup(o->row.x->cgroup) : NULL;
	} else if (o->row.x) {
		c->row.x = NULL; /* out of memory: read again */
		c->p.extra_gen = c->p.cgroup_gen = 0;
	}
	o->p.fd = -1; /* the held stat fd is the copy's now */
	pt->rows[idx] = &c->row;
	proc_row_put(&o->row);
	return &c->row;
}
