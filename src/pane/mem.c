/* The Memory pane: smaps_rollup (and, in the TUI, the RSS of the last
 * minute). */
#include "pane/pane.h"
#include "i18n.h"
#include "out/escape.h"
#include "i18n.h"
#include "util.h"
#include "proc/rollup.h"

#include <stdio.h>

static void show_mem(struct pane_show *s)
{
	struct proc_rollup r;
	int err = proc_rollup_read(s->dirfd, &r);

	if (err && pane_show_zombie(s, &pane_desc_mem))
		return;
	if (err && s->kthread) {
		if (s->json)
			json_object_object_add(s->jpanes, "mem", json_object_new_object());
		else
			pane_show_section(s, &pane_desc_mem, NULL), printf(_("kernel thread: no user address space\n"));
		return;
	}
	if (err) {
		pane_show_error(s, &pane_desc_mem, err, "smaps_rollup");
		return;
	}
	if (s->json) {
		struct json_object *o = json_object_new_object();
		for (int i = 0; i < RU_COUNT; i++)
			pane_kb_json(o, proc_rollup_json((enum proc_rollup_field)i), r.kb[i]);
		json_object_object_add(s->jpanes, "mem", o);
		return;
	}
	pane_show_section(s, &pane_desc_mem, NULL);
	for (int i = 0; i < RU_COUNT; i++)
		pane_kb_text(proc_rollup_key((enum proc_rollup_field)i), r.kb[i]);
}

const struct pane_desc pane_desc_mem = {
	.name = "mem",
	.aliases = { "memory" },
	.title = N_("Memory"),
	.summary = N_("smaps_rollup and the RSS trend of the last minute"),
	.source = N_("/proc/PID/smaps_rollup (it takes the mmap lock: the detail screen reads it every 5 s); needs ptrace-read access"),
	.file = "smaps_rollup",
	.refresh_ms = 5000,
	.help = "pane-mem",
	.show = show_mem,
};
