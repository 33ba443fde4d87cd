/* pscope stack --goroutines (stack-go.h). */
#include "cmd/stack-go.h"
#include "golang/golang.h"
#include "i18n.h"
#include "out/escape.h"
#include "out/json.h"
#include "stack/stack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_frame(const struct go_g *g, size_t k, bool source)
{
	const struct sym_info *s = g->sym[k];
	printf("  #%zu 0x%llx ", k, (unsigned long long)g->pcs[k]);
	if (s && !(s->flags & (SYM_F_STRIPPED | SYM_F_UNKNOWN | SYM_F_ANON)))
		printf("%s+0x%llx", esc(s->function), (unsigned long long)s->offset);
	else
		printf("%s", s ? esc(s->function) : "??");
	if (source && s && s->file && s->line > 0)
		printf(" [%s:%d]", esc(s->file), s->line);
	printf("\n");
}

void stack_go_print(const struct stk_dump *d, bool source)
{
	const struct go_list *l = d->go;

	if (!l) {
		printf(_("goroutines: %s\n"), esc(d->go_error[0] ? d->go_error : _("not read")));
		return;
	}
	printf(P_("%zu goroutine", "%zu goroutines", l->n), l->n);
	printf(_(" (running %zu, runnable %zu, waiting %zu, in a syscall %zu; %zu dead not shown)%s, read from\n"
		 "runtime.allgs once the threads ran again: a running goroutine may have moved on\n\n"),
	       l->by_state[2], l->by_state[1], l->by_state[4], l->by_state[3], l->n_dead,
	       l->cut ? _(" (allgs cut at its cap)") : "");
	for (size_t gi = 0; gi < d->n_go_groups; gi++) {
		size_t i = d->go_groups[gi].first, j = i + d->go_groups[gi].n;
		const struct go_g *g = &l->g[i];
		if (j - i > 1)
			printf(_("%zu goroutines"), j - i);
		else
			printf(_("goroutine %lld"), (long long)g->goid);
		printf(" [%s%s%s]", _(g->state), g->wait[0] ? ": " : "", esc(g->wait));
		if (j - i > 1) {
			printf(" (");
			for (size_t k = i; k < j && k < i + 8; k++)
				printf("%s%lld", k > i ? " " : "", (long long)l->g[k].goid);
			printf("%s)", j - i > 8 ? " ..." : "");
		}
		if (g->tid)
			printf(_(" on TID %d"), (int)g->tid);
		printf("\n");
		if (g->status == 2)
			printf(_("  (running: its frames are its thread's, above)\n"));
		for (size_t k = 0; k < g->n; k++)
			print_frame(g, k, source);
		if (g->more)
			printf(_("  ... (more frames)\n"));
		printf("\n");
	}
}

void stack_go_json(struct json_object *root, const struct stk_dump *d, bool source)
{
	const struct go_list *l = d->go;
	char buf[32];

	if (!l) {
		json_object_object_add(root, "goroutines", NULL);
		out_json_str(root, "goroutines_error", d->go_error[0] ? d->go_error : NULL);
		return;
	}
	struct json_object *go = json_object_new_object(), *list = json_object_new_array();
	struct json_object *by = json_object_new_object();
	out_json_int(go, "count", (long long)l->n);
	out_json_int(go, "dead", (long long)l->n_dead);
	out_json_bool(go, "cut", l->cut);
	out_json_str(go, "read", "after the freeze");
	for (uint32_t st = 0; st < 10; st++)
		if (l->by_state[st])
			out_json_int(by, go_state_name(st), (long long)l->by_state[st]);
	json_object_object_add(go, "by_state", by);
	for (size_t i = 0; i < l->n; i++) {
		const struct go_g *g = &l->g[i];
		struct json_object *jg = json_object_new_object(), *fr = json_object_new_array();
		out_json_int(jg, "goid", g->goid);
		out_json_str(jg, "state", g->state);
		out_json_str(jg, "wait_reason", g->wait[0] ? g->wait : NULL);
		if (g->tid)
			out_json_int(jg, "tid", g->tid);
		for (size_t k = 0; k < g->n; k++) {
			const struct sym_info *s = g->sym[k];
			struct json_object *f = json_object_new_object();
			snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)g->pcs[k]);
			out_json_str(f, "pc", buf);
			out_json_str(f, "function", s ? s->function : NULL);
			out_json_str(f, "file", source && s ? s->file : NULL);
			out_json_int(f, "line", source && s ? s->line : 0);
			json_object_array_add(fr, f);
		}
		json_object_object_add(jg, "frames", fr);
		out_json_bool(jg, "more", g->more);
		json_object_array_add(list, jg);
	}
	json_object_object_add(go, "list", list);
	json_object_object_add(root, "goroutines", go);
}
