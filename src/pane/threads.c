/* The Threads pane: every thread, its state, CPU, wait channel, system
 * call, switches and run-queue delay. */
#include "pane/pane.h"
#include "i18n.h"
#include "out/escape.h"
#include "i18n.h"
#include "util.h"
#include "proc/task.h"
#include "stack/stack.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const pane_threads_cols[PT_NCOLS] = {
	[PT_TID] = N_("TID"),         [PT_NAME] = N_("NAME"),     [PT_STATE] = N_("S"),      [PT_CPU] = N_("CPU%"), [PT_HIST] = N_("CPU_HIST"),
	[PT_LAST] = N_("CPU"),        [PT_WCHAN] = N_("WCHAN"),   [PT_SYSCALL] = N_("SYSCALL"), [PT_VOL] = N_("VOLCSW"),
	[PT_INVOL] = N_("INVCSW"),    [PT_RQ] = N_("RQms/s"),     [PT_LOCK] = N_("LOCK"),
};

/* The lock of every thread in futex() (a view of the symbols made only
 * when one is); locks[i].addr 0: none. */
static struct stk_wait_lock *read_locks(pid_t pid, int dirfd, const struct proc_threads *b)
{
	struct stk_wait_lock *locks = calloc(b->n + 1, sizeof(*locks));
	struct sym_proc *syms = NULL;
	struct stat st;
	uid_t owner = fstat(dirfd, &st) == 0 ? st.st_uid : getuid(); /* the process's owner */

	for (size_t i = 0; locks && i < b->n; i++) {
		const struct proc_thread *t = &b->v[i];
		if (t->syscall_nr < 0)
			continue;
		if (!syms)
			syms = sym_proc_live(pid, owner, 0);
		if (stk_wait_lock(pid, dirfd, syms, t->syscall_nr, t->syscall_args, &locks[i]) == -ESRCH)
			memset(&locks[i], 0, sizeof(locks[i]));
	}
	if (syms)
		sym_proc_free(syms);
	return locks;
}

static void show_threads(struct pane_show *s)
{
	struct proc_threads a = { 0 }, b = { 0 };
	int err = proc_threads_read(s->dirfd, &b);
	bool rates = false;
	struct stk_wait_lock *locks = NULL;

	if (!err && s->interval > 0) {
		struct proc_threads tmp = a;
		a = b;
		b = tmp;
		pane_sleep(s->interval);
		err = proc_threads_read(s->dirfd, &b);
		if (!err) {
			proc_threads_rates(&a, &b);
			rates = true;
		}
	}
	if (err) {
		pane_show_error(s, &pane_desc_threads, err, "task");
		goto out;
	}
	locks = read_locks(s->pid, s->dirfd, &b);
	if (s->json) {
		struct json_object *arr = json_object_new_array();
		for (size_t i = 0; i < b.n; i++) {
			const struct proc_thread *t = &b.v[i];
			struct json_object *e = json_object_new_object();
			char st[2] = { t->state, 0 }, buf[96];
			out_json_int(e, "tid", t->tid);
			if (t->nstid)
				out_json_int(e, "nstid", t->nstid);
			out_json_str(e, "name", t->comm);
			out_json_str(e, "state", st);
			if (rates)
				out_json_double(e, "cpu_pct", t->cpu_pct);
			out_json_int(e, "cpu", t->processor);
			out_json_str(e, "wchan", t->wchan[0] ? t->wchan : NULL);
			out_json_str(e, "syscall", proc_thread_syscall_str(t, buf, sizeof(buf)));
			if (t->syscall_nr >= 0) {
				out_json_int(e, "syscall_nr", t->syscall_nr);
				snprintf(buf, sizeof(buf), "0x%llx", t->syscall_args[0]);
				out_json_str(e, "syscall_arg0", buf);
			}
			out_json_int(e, "voluntary_ctxt_switches", (long long)t->vol_ctxt);
			out_json_int(e, "nonvoluntary_ctxt_switches", (long long)t->nonvol_ctxt);
			if (locks && locks[i].addr) {
				struct json_object *l = json_object_new_object();
				snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)locks[i].addr);
				out_json_str(l, "addr", buf);
				out_json_str(l, "name", locks[i].name[0] ? locks[i].name : NULL);
				if (locks[i].owner)
					out_json_int(l, "owner_tid", locks[i].owner);
				json_object_object_add(e, "lock", l);
			}
			if (t->have_schedstat) {
				out_json_int(e, "run_ns", (long long)t->run_ns);
				out_json_int(e, "runqueue_wait_ns", (long long)t->wait_ns);
				if (rates)
					out_json_double(e, "runqueue_wait_ms_per_s", t->wait_ms_per_s);
			}
			json_object_array_add(arr, e);
		}
		json_object_object_add(s->jpanes, "threads", arr);
		goto out;
	}
	pane_show_section(s, &pane_desc_threads, NULL);
	const char *const *h = pane_threads_cols;
	printf("%7s %-16s %s %6s %3s %-20s %-28s %9s %9s %8s %s\n", h[PT_TID], h[PT_NAME], h[PT_STATE], h[PT_CPU],
	       h[PT_LAST], h[PT_WCHAN], h[PT_SYSCALL], h[PT_VOL], h[PT_INVOL], h[PT_RQ], h[PT_LOCK]);
	for (size_t i = 0; i < b.n; i++) {
		const struct proc_thread *t = &b.v[i];
		char sc[96], lk[256], tid[32];
		/* In a container: the host TID, then its TID there ("4242:7"). */
		if (t->nstid)
			snprintf(tid, sizeof(tid), "%d:%d", (int)t->tid, (int)t->nstid);
		else
			snprintf(tid, sizeof(tid), "%d", (int)t->tid);
		printf("%7s %-16s %c %6.1f %3d %-20s %-28s %9lu %9lu %8.1f %s\n", tid, esc(t->comm), t->state,
		       t->cpu_pct, t->processor, t->wchan[0] ? esc(t->wchan) : "-",
		       proc_thread_syscall_str(t, sc, sizeof(sc)), t->vol_ctxt, t->nonvol_ctxt, t->wait_ms_per_s,
		       locks && locks[i].addr ? esc(stk_wait_lock_str(&locks[i], lk, sizeof(lk))) : "-");
	}
	printf(P_("%zu thread\n", "%zu threads\n", b.n), b.n);
out:
	free(locks);
	proc_threads_free(&a);
	proc_threads_free(&b);
}

const struct pane_desc pane_desc_threads = {
	.name = "threads",
	.title = N_("Threads"),
	.summary = N_("per-thread state, system call, run-queue delay"),
	.source = N_("/proc/PID/task/TID/{stat,status,syscall,wchan,schedstat}, a futex's lock word; syscall and lock need ptrace access"),
	.file = "task",
	.refresh_ms = 900,
	.help = "pane-threads",
	.show = show_threads,
};
