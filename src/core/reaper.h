/* Reaping the fork snapshot's child from inside the target, and the
 * watchdog that does it should pscope die.
 *
 * The snapshot child is a child of the target with exit signal 0: when it
 * dies (killed by pscope, by PTRACE_O_EXITKILL when pscope dies, or by its
 * own exit(0) frame) it stays a zombie of the target, invisible to the
 * target's waitpid(-1) but a zombie all the same, until someone calls
 * wait4(pid, __WALL) in the target. reaper_reap() stops one thread and
 * injects that call. Before the clone, pscope forks a watchdog process
 * (its own session, every other fd closed) that waits on a pipe; if pscope
 * vanishes before saying "done", the watchdog finds the child (a new child
 * of the injected thread since the watchdog started), waits for it to die
 * and reaps it the same way. */
#ifndef PS_CORE_REAPER_H
#define PS_CORE_REAPER_H

#include <sys/types.h>

#include "core/inject.h"
#include "error.h"
#include "target.h"

struct reaper {
	pid_t pid;      /* the watchdog process, 0 if none */
	int fd;         /* write end of its pipe */
};

/* Start the watchdog for an injection into thread tid of target t. */
int reaper_start(struct reaper *r, const struct target *t, pid_t tid, const struct inject_site *site,
		 struct ps_error *e);
/* Tell it the child (pid as pscope sees it, and in the target's namespace). */
void reaper_child(struct reaper *r, pid_t child, pid_t child_ns);
/* Nothing left to clean: let it go and collect it. */
void reaper_done(struct reaper *r);

/* Stop thread tid of pid (preferring it; any thread if it is gone), inject
 * wait4(child_ns, NULL, __WALL|WNOHANG, NULL), release it. Returns the
 * wait4 result (child_ns when reaped), or -errno. Call from a thread that
 * traces nothing of pid. */
long reaper_reap(pid_t pid, pid_t tid, const struct inject_site *site, pid_t child_ns, struct ps_error *e);

#endif
