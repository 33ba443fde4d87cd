/* What the kernel recorded in a core, for the batch commands: a text
 * header, the warnings, and the JSON object. Every string of the core is
 * hostile: through esc() and json-c only. */
#include "cmd/core-out.h"
#include "core/read.h"
#include "i18n.h"
#include "out/escape.h"
#include "out/json.h"
#include "util.h"

#include <signal.h>
#include <stdio.h>

static void hex(struct json_object *o, const char *key, unsigned long long v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "0x%llx", v);
	out_json_str(o, key, buf);
}

/* "SIGSEGV (SEGV_MAPERR: address not mapped to object) at 0x10" */
static void signal_text(const struct core_siginfo *s, char *buf, size_t size)
{
	const char *name = core_signal_name(s->signo), *meaning = NULL;
	const char *code = core_sigcode_name(s->signo, s->code, &meaning);
	char nb[32], cb[32];
	int n;

	if (!name) {
		snprintf(nb, sizeof(nb), _("signal %d"), s->signo);
		name = nb;
	}
	if (!code) {
		snprintf(cb, sizeof(cb), _("code %d"), s->code);
		code = cb;
	}
	n = snprintf(buf, size, "%s (%s%s%s)", name, code, meaning ? ": " : "", meaning ? meaning : "");
	if (n < 0 || (size_t)n >= size)
		return;
	if (s->code > 0 && s->code != 0x80)
		snprintf(buf + n, size - (size_t)n, _(" at 0x%llx"), (unsigned long long)s->addr);
	else if (s->code <= 0)
		snprintf(buf + n, size - (size_t)n, _(" from PID %d, uid %d"), s->pid, s->uid);
}

void core_print_header(FILE *f, const struct core *c)
{
	const struct core_info *ci = &c->info;
	const struct core_thread *ct = core_crashed_thread(c);

	if (ci->have_psinfo) {
		fprintf(f, _("core %s: PID %d \"%s\", uid %d, state %c\n"), esc(c->path), ci->pid, esc(ci->fname), ci->uid,
			ci->state ? ci->state : '?');
		fprintf(f, _("command line: %s\n"), esc(ci->psargs));
	} else {
		fprintf(f, _("core %s: PID %d (no process info in the core)\n"), esc(c->path),
			ci->n_threads ? ci->threads[0].tid : 0);
	}
	if (c->compression) {
		char a[32], b[32];
		fprintf(f, _("decompressed from %s (%s) into a temporary file (%s)\n"), c->compression,
			human_bytes(c->packed_size, a, sizeof(a)), human_bytes(c->size, b, sizeof(b)));
	}
	if (ct && ci->sig.valid && ci->sig.signo) {
		char sb[256];
		signal_text(&ci->sig, sb, sizeof(sb));
		fprintf(f, _("signal %s, in TID %d\n"), sb, ct->tid);
	} else if (ct) {
		const char *sn = core_signal_name(ct->cursig);
		fprintf(f, _("signal %s, in TID %d\n"), sn ? sn : "?", ct->tid);
	} else if (ci->sig.valid && ci->sig.signo == SIGSTOP) {
		fprintf(f, _("no fatal signal: a snapshot written while a debugger held it stopped (gcore)\n"));
	} else {
		fprintf(f, _("no signal recorded: a snapshot of a running process (gcore, pscope core)\n"));
	}
	fprintf(f, P_("%zu thread", "%zu threads", ci->n_threads), ci->n_threads);
	fprintf(f, P_(", %zu mapped file\n", ", %zu mapped files\n", c->n_mods), c->n_mods);
}

void core_print_warnings(FILE *f, const char *prog, const struct core *c)
{
	char buf[1024];

	for (size_t i = 0; i < c->info.n_warnings; i++)
		fprintf(f, "%s: %s\n", prog, esc(c->info.warnings[i]));
	for (size_t i = 0; i < c->n_mods; i++)
		if (core_module_problem(&c->mods[i], buf, sizeof(buf)))
			fprintf(f, "%s: %s\n", prog, esc(buf));
}

static const char *status_name(enum core_mod_status s)
{
	switch (s) {
	case CORE_MOD_OK: return "ok";
	case CORE_MOD_NO_ID: return "no-build-id";
	case CORE_MOD_MISMATCH: return "mismatch";
	case CORE_MOD_MISSING: return "missing";
	case CORE_MOD_MEMORY: return "memory";
	}
	return "?";
}

static void build_id(struct json_object *o, const char *key, const unsigned char *id, size_t n)
{
	char buf[2 * 64 + 1];

	if (!n) {
		json_object_object_add(o, key, NULL);
		return;
	}
	for (size_t i = 0; i < n && i < 64; i++)
		snprintf(buf + 2 * i, 3, "%02x", id[i]);
	out_json_str(o, key, buf);
}

struct json_object *core_json(const struct core *c)
{
	const struct core_info *ci = &c->info;
	const struct core_thread *ct = core_crashed_thread(c);
	struct json_object *o = json_object_new_object(), *sig = json_object_new_object();
	struct json_object *mods = json_object_new_array(), *warn = json_object_new_array();
	char buf[1024];

	out_json_str(o, "path", c->path);
	out_json_int(o, "size", (long long)c->size);
	out_json_bool(o, "truncated", c->truncated);
	out_json_str(o, "compression", c->compression);
	if (c->compression)
		out_json_int(o, "compressed_size", (long long)c->packed_size);
	if (ci->have_psinfo) {
		char st[2] = { ci->state ? ci->state : '?', 0 };
		out_json_str(o, "program", ci->fname);
		out_json_str(o, "cmdline", ci->psargs);
		out_json_int(o, "uid", ci->uid);
		out_json_int(o, "gid", ci->gid);
		out_json_int(o, "ppid", ci->ppid);
		out_json_str(o, "state", st);
	}
	int signo = core_signal(c);
	out_json_int(sig, "number", signo);
	out_json_str(sig, "name", core_signal_name(signo));
	if (ci->sig.valid && signo) {
		out_json_int(sig, "code", ci->sig.code);
		out_json_str(sig, "code_name", core_sigcode_name(ci->sig.signo, ci->sig.code, NULL));
		if (ci->sig.code > 0 && ci->sig.code != 0x80)
			hex(sig, "addr", ci->sig.addr);
		else
			json_object_object_add(sig, "addr", NULL);
	}
	if (ct)
		out_json_int(sig, "tid", ct->tid);
	else
		json_object_object_add(sig, "tid", NULL);
	json_object_object_add(o, "signal", sig);
	for (size_t i = 0; i < c->n_mods; i++) {
		const struct core_module *m = &c->mods[i];
		struct json_object *jm = json_object_new_object();
		out_json_str(jm, "path", m->path);
		out_json_str(jm, "file", m->disk_path);
		hex(jm, "base", m->base);
		build_id(jm, "build_id", m->id_core, m->id_core_len);
		build_id(jm, "file_build_id", m->id_disk, m->id_disk_len);
		out_json_str(jm, "status", status_name(m->status));
		json_object_array_add(mods, jm);
	}
	json_object_object_add(o, "modules", mods);
	for (size_t i = 0; i < ci->n_warnings; i++)
		json_object_array_add(warn, json_object_new_string(ci->warnings[i]));
	for (size_t i = 0; i < c->n_mods; i++)
		if (core_module_problem(&c->mods[i], buf, sizeof(buf)))
			json_object_array_add(warn, json_object_new_string(buf));
	json_object_object_add(o, "warnings", warn);
	return o;
}
