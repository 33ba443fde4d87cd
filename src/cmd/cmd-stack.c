/* pscope stack PID: every thread's stack from one short freeze, and the
 * deadlocks among them. */
#include "cmd/cmd.h"
#include "cmd/core-out.h"
#include "core/read.h"
#include "i18n.h"
#include "out/escape.h"
#include "out/json.h"
#include "python/python.h"
#include "stack/stack.h"
#include "cmd/stack-go.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct stack_flags {
	bool json, source, inlines, group, goroutines;
	int max_frames;
	const char *core, *exe, *sysroot;
	enum stk_view view;
};

static void print_frame(const struct stk_frame *f, int *no, const struct stack_flags *fl)
{
	const struct sym_info *s = f->sym;
	const char *mod = s && s->module ? s->module : "?";

	if (f->py) {
		printf("#%d %s (%s:%d)\n", (*no)++, esc(f->py->qualname), esc(f->py->file), f->line);
		return;
	}

	if (fl->inlines && s) {
		for (size_t i = 0; i < s->n_inl; i++) {
			printf(_("#%d 0x%llx %s (inlined) (%s)"), (*no)++, (unsigned long long)f->pc,
			       esc(s->inl[i].function ? s->inl[i].function : "??"), esc(mod));
			if (s->inl[i].file)
				printf(" [%s:%d]", esc(s->inl[i].file), s->inl[i].line);
			printf("\n");
		}
	}
	printf("#%d 0x%llx ", (*no)++, (unsigned long long)f->pc);
	if (s && !(s->flags & (SYM_F_STRIPPED | SYM_F_UNKNOWN | SYM_F_ANON)))
		printf("%s+0x%llx", esc(s->function), (unsigned long long)s->offset);
	else
		printf("%s", s ? esc(s->function) : "??");
	printf(" (%s)", esc(mod));
	if (fl->source && s) {
		/* The line in the named function, as gdb shows it (inlined
		 * calls at the pc have their own lines, with --inlines). */
		const char *file = s->file;
		int line = s->line;
		if (file && line > 0)
			printf(" [%s:%d]", esc(file), line);
		else if (file) /* a note: "(line table over the ... cap)" */
			printf(" [%s]", esc(file));
	}
	printf("\n");
}

static void print_thread_line(const struct stk_thread *t)
{
	char lock[600];

	printf("TID %d \"%s\"", (int)t->tid, esc(t->name));
	if (t->nstid)
		printf(_(" [TID %d in its pid namespace]"), (int)t->nstid);
	if (t->python_name)
		printf(" [%s]", esc(t->python_name));
	printf(" (%c, %s)", t->state ? t->state : '?', esc(t->syscall));
	if (t->gil)
		printf(" %s", _("holds the GIL"));
	if (t->idle)
		printf(" %s %s", _("idle:"), _(t->idle));
	if (t->jvm_wait)
		printf(" %s %s", _("Java:"), _(t->jvm_wait));
	if (t->signal) {
		const char *sn = core_signal_name(t->signal);
		if (sn)
			printf(_(" received %s"), sn);
		else
			printf(_(" received signal %d"), t->signal);
	}
	if (t->py_lock) {
		printf(_(" waits for threading.Lock %s"), esc(stk_lock_str(t->py_lock, t->py_lock_name, lock, sizeof(lock))));
		if (t->py_lock_holder)
			printf(_(" held by TID %d (inside `with` it)"), (int)t->py_lock_holder);
		else
			printf(_(" (its holder is not known: CPython records none)"));
		if (t->behind_cycle)
			printf(_(", blocked behind deadlock %d"), t->behind_cycle);
	} else if (t->py_lock_why) {
		printf(" (%s)", _(t->py_lock_why));
	} else if (t->behind_cycle) {
		printf(_(" blocked behind deadlock %d (lock %s held by TID %d)"), t->behind_cycle,
		       esc(stk_lock_str(t->wait_lock, t->wait_lock_name, lock, sizeof(lock))), (int)t->waits_for);
	}
	printf("\n");
	if (t->skipped)
		printf(_("   not stopped: %s\n"), t->skipped);
}

static void print_frames(const struct stk_thread *t, const struct stack_flags *fl)
{
	int no = 0;
	for (size_t i = 0; i < t->n_frames; i++) {
		const struct stk_frame *f = &t->frames[i];
		if (f->by_fp && i > 0 && !t->frames[i - 1].by_fp) {
			const struct sym_info *s = t->frames[i - 1].sym;
			printf(_("   -- no CFI for %s: the frames below follow frame pointers --\n"),
			       esc(s && s->module ? s->module : "?"));
		}
		if (stk_frame_shown(t, f, fl->view))
			print_frame(f, &no, fl);
	}
	if (t->unwind_end)
		printf(_("   unwinding stopped: %s\n"), _(t->unwind_end));
	else if (t->truncated)
		printf(_("   ... (more frames: --max-frames)\n"));
}

static void print_text(const struct stk_dump *d, const struct stack_flags *fl, bool live)
{
	char lock[600], where[1200];

	if (d->py_version[0] && !d->py_error[0])
		printf(_("CPython %s\n\n"), esc(d->py_version));
	for (size_t c = 0; c < d->n_cycles; c++) {
		const struct stk_cycle *cy = &d->cycles[c];
		if (cy->n == 1)
			printf(_("deadlock: a thread waits for a lock it holds itself\n"));
		else
			printf(P_("deadlock: %zu thread waits for the others\n", "deadlock: %zu threads wait for each other\n",
				  cy->n), cy->n);
		for (size_t k = 0; k < cy->n; k++) {
			const struct stk_edge *e = &cy->edges[k];
			const char *name = "";
			for (size_t i = 0; i < d->n_threads; i++)
				if (d->threads[i].tid == e->tid)
					name = d->threads[i].name;
			printf(e->py_lock ? _("  TID %d \"%s\" waits for threading.Lock %s") : _("  TID %d \"%s\" waits for lock %s"),
			       (int)e->tid, esc(name), esc(stk_lock_str(e->lock_addr, e->lock_name, lock, sizeof(lock))));
			printf(e->py_lock ? _(" held by TID %d (inside `with` it), in %s\n") : _(" held by TID %d, in %s\n"),
			       (int)e->waits_for_tid, esc(stk_frame_where(e->frame, where, sizeof(where))));
		}
		for (size_t k = 0; k < cy->n; k++)
			if (cy->edges[k].py_lock) {
				printf(_("  (CPython records no owner for a Lock: each holder is the thread whose frames are\n"
					 "   inside a `with` block of it)\n"));
				break;
			}
		printf("\n");
	}
	if (d->n_jvm_monitor && !live) {
		printf(P_("Java: %zu thread waits to enter a monitor (synchronized); the monitors and their owners are not\n"
			  "read (in a live JVM, jcmd PID Thread.print names them)\n\n",
			  "Java: %zu threads wait to enter a monitor (synchronized); the monitors and their owners are not\n"
			  "read (in a live JVM, jcmd PID Thread.print names them)\n\n", d->n_jvm_monitor),
		       d->n_jvm_monitor);
	} else if (d->n_jvm_monitor) {
		printf(P_("Java: %zu thread waits to enter a monitor (synchronized); which monitors, their owners and any\n"
			  "Java-level deadlock: jcmd %d Thread.print\n\n",
			  "Java: %zu threads wait to enter a monitor (synchronized); which monitors, their owners and any\n"
			  "Java-level deadlock: jcmd %d Thread.print\n\n", d->n_jvm_monitor),
		       d->n_jvm_monitor, (int)d->target.pid);
	}
	if (!fl->group) {
		for (size_t i = 0; i < d->n_threads; i++) {
			print_thread_line(&d->threads[i]);
			print_frames(&d->threads[i], fl);
			printf("\n");
		}
		return;
	}
	for (size_t g = 0; g < d->n_groups; g++) {
		const struct stk_group *gr = &d->groups[g];
		const struct stk_thread *first = &d->threads[gr->members[0]];
		if (gr->n > 1) {
			char chain[1024];
			stk_chain(first, chain, sizeof(chain));
			printf(P_("%zu thread: %s\n", "%zu threads: %s\n", gr->n), gr->n, esc(chain));
		}
		for (size_t k = 0; k < gr->n; k++)
			print_thread_line(&d->threads[gr->members[k]]);
		print_frames(first, fl);
		printf("\n");
	}
}

static void hex(struct json_object *o, const char *key, unsigned long long v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "0x%llx", v);
	out_json_str(o, key, buf);
}

static struct json_object *json_frame(uint64_t pc, const char *fn, long long off, const char *mod, const char *file,
				      int line, bool inlined)
{
	struct json_object *f = json_object_new_object();
	hex(f, "pc", pc);
	out_json_str(f, "kind", "native");
	out_json_str(f, "function", fn);
	out_json_str(f, "qualname", fn);
	if (off >= 0)
		out_json_int(f, "offset", off);
	else
		json_object_object_add(f, "offset", NULL);
	out_json_str(f, "module", mod);
	out_json_str(f, "file", file);
	if (file)
		out_json_int(f, "line", line);
	else
		json_object_object_add(f, "line", NULL);
	if (inlined)
		out_json_bool(f, "inlined", 1);
	return f;
}

static int print_json(const struct stk_dump *d, const struct stack_flags *fl, struct core *core)
{
	struct json_object *root = json_object_new_object();
	struct json_object *threads = json_object_new_array();
	struct json_object *dls = json_object_new_array();

	out_json_int(root, "pid", d->target.pid);
	if (core)
		json_object_object_add(root, "core", core_json(core));
	else
		out_json_double(root, "pause_ms", d->pause_ms);
	if (d->py_version[0] || d->py_error[0]) {
		struct json_object *py = json_object_new_object();
		out_json_str(py, "version", d->py_version[0] ? d->py_version : NULL);
		out_json_str(py, "error", d->py_error[0] ? d->py_error : NULL);
		out_json_double(py, "read_ms", d->py_read_ms);
		json_object_object_add(root, "python", py);
	}
	if (d->jvm && !core) {
		/* HotSpot: what the frames say; the monitors are jcmd's to name */
		struct json_object *jv = json_object_new_object();
		char cmd[64];
		snprintf(cmd, sizeof(cmd), "jcmd %d Thread.print", (int)d->target.pid);
		out_json_int(jv, "monitor_waiters", (long long)d->n_jvm_monitor);
		out_json_str(jv, "monitors_from", cmd);
		json_object_object_add(root, "jvm", jv);
	}
	out_json_str(root, "view", fl->view == STK_VIEW_PYTHON ? "python" : fl->view == STK_VIEW_NATIVE ? "native" : "mixed");
	for (size_t i = 0; i < d->n_threads; i++) {
		const struct stk_thread *t = &d->threads[i];
		struct json_object *jt = json_object_new_object(), *frames = json_object_new_array();
		char st[2] = { t->state ? t->state : '?', 0 };
		out_json_int(jt, "tid", t->tid);
		if (t->nstid)
			out_json_int(jt, "nstid", t->nstid);
		out_json_str(jt, "name", t->name);
		out_json_str(jt, "state", st);
		out_json_str(jt, "syscall", t->syscall);
		if (t->signal)
			out_json_int(jt, "signal", t->signal);
		if (t->skipped)
			out_json_str(jt, "skipped", t->skipped);
		out_json_str(jt, "python_name", t->python_name);
		out_json_bool(jt, "gil", t->gil);
		out_json_str(jt, "idle", t->idle);
		out_json_str(jt, "unwind_end", t->unwind_end);
		if (t->py_lock) {
			struct json_object *pl = json_object_new_object();
			hex(pl, "lock_addr", t->py_lock);
			out_json_str(pl, "name", t->py_lock_name);
			if (t->py_lock_holder)
				out_json_int(pl, "holder_tid", t->py_lock_holder);
			else
				json_object_object_add(pl, "holder_tid", NULL);
			out_json_str(pl, "holder_from", t->py_lock_holder ? "with" : NULL);
			json_object_object_add(jt, "python_lock", pl);
		}
		out_json_str(jt, "python_lock_unknown", t->py_lock_why);
		if (t->jvm_wait)
			out_json_str(jt, "jvm_wait", t->jvm_wait);
		if (t->behind_cycle) {
			/* blocked behind a deadlock: its lock as the cycle's edges name one */
			out_json_int(jt, "behind_deadlock", t->behind_cycle);
			out_json_int(jt, "waits_for_tid", t->waits_for);
			hex(jt, "lock_addr", t->wait_lock);
			out_json_str(jt, "lock_name", t->wait_lock_name);
		}
		for (size_t k = 0; k < t->n_frames; k++) {
			const struct stk_frame *f = &t->frames[k];
			const struct sym_info *s = f->sym;
			if (!stk_frame_shown(t, f, fl->view))
				continue;
			if (f->py) {
				struct json_object *pf = json_object_new_object();
				out_json_str(pf, "kind", "python");
				out_json_str(pf, "function", f->py->name);
				out_json_str(pf, "qualname", f->py->qualname);
				out_json_str(pf, "file", f->py->file);
				out_json_int(pf, "line", f->line);
				hex(pf, "code", f->pc);
				json_object_array_add(frames, pf);
				continue;
			}
			if (fl->inlines)
				for (size_t n = 0; n < s->n_inl; n++)
					json_object_array_add(frames, json_frame(f->pc, s->inl[n].function, -1, s->module,
										 s->inl[n].file, s->inl[n].line, true));
			const char *file = fl->source ? s->file : NULL;
			int line = s->line;
			struct json_object *jf = json_frame(f->pc, s->function,
							    s->flags & (SYM_F_STRIPPED | SYM_F_UNKNOWN | SYM_F_ANON) ? -1 : (long long)s->offset,
							    s->module, file, line, false);
			if (f->by_fp)
				out_json_bool(jf, "by_frame_pointer", true);
			json_object_array_add(frames, jf);
		}
		json_object_object_add(jt, "frames", frames);
		json_object_array_add(threads, jt);
	}
	json_object_object_add(root, "threads", threads);
	for (size_t c = 0; c < d->n_cycles; c++) {
		struct json_object *cy = json_object_new_array();
		for (size_t k = 0; k < d->cycles[c].n; k++) {
			const struct stk_edge *e = &d->cycles[c].edges[k];
			struct json_object *je = json_object_new_object();
			out_json_int(je, "tid", e->tid);
			out_json_int(je, "waits_for_tid", e->waits_for_tid);
			hex(je, "lock_addr", e->lock_addr);
			out_json_str(je, "lock_name", e->lock_name);
			out_json_str(je, "kind", e->py_lock ? "python_lock" : "mutex");
			if (e->py_lock) {
				/* the holder inferred from its `with` block */
				out_json_str(je, "holder_from", "with");
				out_json_str(je, "function", e->frame && e->frame->py ? e->frame->py->qualname : NULL);
				out_json_str(je, "file", e->frame && e->frame->py ? e->frame->py->file : NULL);
				out_json_int(je, "line", e->frame && e->frame->py ? e->frame->line : 0);
			} else {
				out_json_str(je, "function", e->frame && e->frame->sym ? e->frame->sym->function : NULL);
			}
			json_object_array_add(cy, je);
		}
		json_object_array_add(dls, cy);
	}
	json_object_object_add(root, "deadlocks", dls);
	if (fl->goroutines && !core)
		stack_go_json(root, d, fl->source);
	return out_json_print(stdout, root, 1);
}

static void stack_init(void *state)
{
	struct stack_flags *fl = state;

	fl->group = true;
	fl->max_frames = 64;
}

static int stack_option(void *state, int opt, const char *arg)
{
	struct stack_flags *fl = state;

	switch (opt) {
	case 'j': fl->json = true; break;
	case 's': fl->source = true; break;
	case 'i': fl->inlines = fl->source = true; break;
	case 'g': fl->group = false; break;
	case 'G': fl->goroutines = true; break;
	case 'c': fl->core = arg; break;
	case 'x': fl->exe = arg; break;
	case 'r': fl->sysroot = arg; break;
	case 'X': fl->view = STK_VIEW_MIXED; break;
	case 'P': fl->view = STK_VIEW_PYTHON; break;
	case 'N': fl->view = STK_VIEW_NATIVE; break;
	case 'm': {
		char *end;
		long v = strtol(arg, &end, 10);
		if (*end || end == arg || v < 1 || v > 4096)
			return cmd_bad_value("stack", _("--max-frames wants a number from 1 to 4096, not '%s'"), arg);
		fl->max_frames = (int)v;
		break;
	}
	}
	return 0;
}

/* pscope stack --core: what the kernel recorded, then the same output. */
static int stack_core(const struct stack_flags *fl)
{
	struct core_open_opts co = { .exe = fl->exe, .sysroot = fl->sysroot };
	struct stk_opts o = { .max_frames = fl->max_frames, .source = fl->source };
	struct ps_error e;
	struct core *c;
	struct stk_dump *d;

	ps_error_clear(&e);
	if (core_open(fl->core, &co, &c, &e) < 0)
		return cmd_fail("stack", &e);
	if (core_stack_dump(c, &o, &d, &e) < 0) {
		core_close(c);
		return cmd_fail("stack", &e);
	}
	if (fl->json) {
		print_json(d, fl, c);
	} else {
		core_print_header(stdout, c);
		printf("\n");
		print_text(d, fl, false);
	}
	fflush(stdout);
	core_print_warnings(stderr, "pscope stack", c);
	if (d->py_error[0])
		fprintf(stderr, "pscope stack: %s\n", esc(d->py_error));
	fprintf(stderr, P_("%zu thread read from the core in %.2f ms\n", "%zu threads read from the core in %.2f ms\n",
			   d->n_threads),
		d->n_threads, d->wall_ms);
	stk_dump_free(d);
	core_close(c);
	return 0;
}

static int stack_exec(void *state, pid_t pid)
{
	struct stack_flags fl = *(struct stack_flags *)state;
	struct ps_error e;
	struct stk_dump *d;

	if (fl.core && pid) {
		return cmd_usage_error("stack", "%s", _("a PID and --core: --core reads no process"));
	}
	if (fl.core && fl.goroutines)
		return cmd_usage_error("stack", "%s", _("--goroutines reads a live Go process, not a core"));
	if (fl.core)
		return stack_core(&fl);
	if (fl.exe || fl.sysroot) {
		return cmd_usage_error("stack", "%s", _("--exe and --sysroot go with --core"));
	}
	if (!pid)
		return cmd_parse_pid("stack", NULL) < 0 ? 2 : 2;

	struct stk_opts o = { .max_frames = fl.max_frames, .source = fl.source, .goroutines = fl.goroutines };
	struct target_id id;
	ps_error_clear(&e);
	if (target_id_of(pid, &id, &e) < 0 || stk_dump_run(&id, &o, &d, &e) < 0)
		return cmd_fail("stack", &e);
	if (fl.json) {
		print_json(d, &fl, NULL);
	} else {
		print_text(d, &fl, true);
		if (fl.goroutines)
			stack_go_print(d, fl.source);
	}
	fflush(stdout);
	for (size_t i = 0; i < d->n_threads; i++)
		if (d->threads[i].skipped)
			fprintf(stderr, _("pscope stack: thread %d not stopped: %s\n"), (int)d->threads[i].tid,
				d->threads[i].skipped);
	if (d->py_error[0])
		fprintf(stderr, "pscope stack: %s\n", esc(d->py_error));
	fprintf(stderr, P_("stopped %zu thread for %.2f ms\n", "stopped %zu threads for %.2f ms\n", d->n_stopped),
		d->n_stopped, d->pause_ms);
	stk_dump_free(d);
	return 0;
}

/* Long options only (the letters are internal). */
static const struct option stack_options[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "source", no_argument, NULL, 's' },
	{ "inlines", no_argument, NULL, 'i' },
	{ "no-group", no_argument, NULL, 'g' },
	{ "goroutines", no_argument, NULL, 'G' },
	{ "max-frames", required_argument, NULL, 'm' },
	{ "core", required_argument, NULL, 'c' },
	{ "exe", required_argument, NULL, 'x' },
	{ "sysroot", required_argument, NULL, 'r' },
	{ "mixed", no_argument, NULL, 'X' },
	{ "python", no_argument, NULL, 'P' },
	{ "native", no_argument, NULL, 'N' },
	{ NULL, 0, NULL, 0 },
};

const struct cmd_entry cmd_stack_entry = {
	.name = "stack",
	.args = "PID|--core CORE [--exe EXE] [--sysroot DIR] [--json] [--source] [--inlines] [--no-group]\n"
		"       [--max-frames N] [--mixed|--python|--native] [--goroutines]",
	.help = N_("Stop every thread of PID for a moment, copy the stacks, let it run, then\n"
		   "unwind and symbolize them and report the deadlocks among them.\n"
		   "With --core, the same from a core file, after what the kernel recorded.\n"
		   "  --core CORE     read the threads from a core file instead of a process\n"
		   "  --exe EXE       the program of the core (default: the path in the core)\n"
		   "  --sysroot DIR   find the core's files under DIR (a core from another machine)\n"
		   "  --json          JSON instead of text\n"
		   "  --source        file:line of every frame (needs debug info)\n"
		   "  --inlines       show inlined calls as frames of their own (implies --source)\n"
		   "  --no-group      print every thread, not one stack per group of identical ones\n"
		   "  --max-frames N  frames per thread (default 64)\n"
		   "  --mixed         CPython: Python frames in place of the interpreter frames\n"
		   "                  that ran them (the default)\n"
		   "  --python        CPython: Python frames only, like py-spy dump\n"
		   "  --native        CPython: native frames only\n"
		   "  --goroutines    Go: the goroutines too (runtime.allgs: state, wait reason, top frames)\n"),
	.shortopts = "",
	.options = stack_options,
	.pid = CMD_PID_OPTIONAL,
	.state_size = sizeof(struct stack_flags),
	.init = stack_init,
	.option = stack_option,
	.exec = stack_exec,
};
