/* A throwaway pane, added in a test build only (tests/unit/test-panes.c)
 * the way doc/architecture.md says: this file is what src/pane/NAME.c
 * holds, and the build adds PANE(throwaway) to a copy of src/pane/panes.h. */
#include "pane/pane.h"

#include <stdio.h>

static void show_throwaway(struct pane_show *s)
{
	if (s->json) {
		json_object_object_add(s->jpanes, "throwaway", json_object_new_object());
		return;
	}
	pane_show_section(s, &pane_desc_throwaway, NULL);
	printf("throwaway\n");
}

const struct pane_desc pane_desc_throwaway = {
	.name = "throwaway",
	.aliases = { "thrown" },
	.title = "Throwaway",
	.summary = "a pane that exists only in this test",
	.source = "/proc/PID/stat",
	.file = "stat",
	.refresh_ms = 1000,
	.help = "pane-throwaway",
	.show = show_throwaway,
};
