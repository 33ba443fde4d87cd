/* What a HotSpot JVM thread waits for, from its native frames: the JVM's
 * own functions (libjvm.so) say whether it waits to enter a monitor
 * (`synchronized`), in Object.wait() or in LockSupport.park(). The monitor
 * objects and their owners live in the JVM's heap and are not read here:
 * the output points at `jcmd PID Thread.print`, which names them and
 * finds Java-level deadlocks. */
#include "stack/internal.h"
#include "i18n.h"

#include <string.h>

static bool in_jvm(const struct sym_info *s)
{
	const char *m = s && s->module ? strrchr(s->module, '/') : NULL;
	m = m ? m + 1 : s ? s->module : NULL;
	return m && !strcmp(m, "libjvm.so");
}

static const char *wait_of(const char *fn)
{
	static const struct {
		const char *prefix;
		const char *what;
	} w[] = {
		{ "ObjectMonitor::EnterI", N_("monitor enter") },
		{ "ObjectMonitor::ReenterI", N_("monitor enter") },
		{ "ObjectMonitor::enter", N_("monitor enter") },
		{ "ObjectMonitor::wait", N_("Object.wait()") },
		{ "Parker::park", N_("LockSupport.park()") },
	};
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (!strncmp(fn, w[i].prefix, strlen(w[i].prefix)))
			return w[i].what;
	return NULL;
}

void stk_jvm_classify(struct stk_dump *d)
{
	for (size_t i = 0; i < d->n_threads; i++) {
		struct stk_thread *t = &d->threads[i];
		bool jvm = false;
		/* The innermost JVM function that says it: past the JVM's park
		 * and futex plumbing, before any frame outside libjvm.so. */
		for (size_t k = 0; k < t->n_frames; k++) {
			const struct sym_info *s = t->frames[k].sym;
			if (!in_jvm(s)) {
				if (jvm)
					break;
				continue;
			}
			jvm = true;
			d->jvm = true;
			if (s->function && (t->jvm_wait = wait_of(s->function)))
				break;
		}
		if (t->jvm_wait && !strcmp(t->jvm_wait, "monitor enter"))
			d->n_jvm_monitor++;
	}
}
