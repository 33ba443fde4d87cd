/* The Maps pane: every mapping, and per file like pmap -x; Rss/Pss/Swap
 * from smaps on demand. */
#include "pane/pane.h"
#include "i18n.h"
#include "out/escape.h"
#include "i18n.h"
#include "util.h"
#include "proc/maps.h"

#include <stdio.h>
#include <stdlib.h>

static void show_maps(struct pane_show *s)
{
	struct proc_maps m = { 0 };
	struct proc_map_agg *agg = NULL;
	size_t nagg = 0;
	double *times;
	int err = 0;

	if (pane_show_zombie(s, &pane_desc_maps))
		return;
	times = s->repeat ? calloc((size_t)s->repeat, sizeof(double)) : NULL;

	for (int i = 0; i <= s->repeat; i++) {
		uint64_t t0 = now_ns();
		err = proc_maps_read(s->dirfd, s->smaps, &m);
		if (i && times)
			times[i - 1] = pane_ms_since(t0);
	}
	if (err) {
		pane_show_error(s, &pane_desc_maps, err, s->smaps ? "smaps" : "maps");
		goto out;
	}
	if (times)
		pane_report_times(s->smaps ? "maps (smaps)" : "maps", times, s->repeat, m.n, _("mappings"));
	if (proc_maps_aggregate(&m, &agg, &nagg) < 0)
		nagg = 0;
	if (s->json) {
		struct json_object *o = json_object_new_object(), *arr = json_object_new_array();
		struct json_object *files = json_object_new_array();
		out_json_int(o, "count", (long long)m.n);
		out_json_bool(o, "smaps", m.smaps);
		for (size_t i = 0; i < m.n; i++) {
			const struct proc_map *p = &m.v[i];
			struct json_object *e = json_object_new_object();
			char b[32];
			snprintf(b, sizeof(b), "%llx", p->start);
			out_json_str(e, "start", b);
			snprintf(b, sizeof(b), "%llx", p->end);
			out_json_str(e, "end", b);
			out_json_str(e, "perms", p->perms);
			out_json_int(e, "offset", (long long)p->offset);
			snprintf(b, sizeof(b), "%02x:%02x", p->dev_major, p->dev_minor);
			out_json_str(e, "dev", b);
			out_json_int(e, "inode", (long long)p->inode);
			out_json_str(e, "path", p->path);
			out_json_bool(e, "deleted", p->deleted);
			out_json_int(e, "size_kb", (long long)((p->end - p->start) / 1024));
			if (m.smaps) {
				pane_kb_json(e, "rss_kb", p->rss_kb);
				pane_kb_json(e, "pss_kb", p->pss_kb);
				pane_kb_json(e, "swap_kb", p->swap_kb);
				pane_kb_json(e, "dirty_kb", p->dirty_kb);
			}
			json_object_array_add(arr, e);
		}
		json_object_object_add(o, "maps", arr);
		for (size_t i = 0; i < nagg; i++) {
			struct json_object *e = json_object_new_object();
			out_json_str(e, "path", agg[i].path);
			out_json_int(e, "mappings", (long long)agg[i].count);
			out_json_int(e, "size_kb", (long long)agg[i].size_kb);
			if (m.smaps) {
				pane_kb_json(e, "rss_kb", agg[i].rss_kb);
				pane_kb_json(e, "pss_kb", agg[i].pss_kb);
				pane_kb_json(e, "swap_kb", agg[i].swap_kb);
				pane_kb_json(e, "dirty_kb", agg[i].dirty_kb);
			}
			json_object_array_add(files, e);
		}
		json_object_object_add(o, "files", files);
		json_object_object_add(s->jpanes, "maps", o);
		goto out;
	}
	pane_show_section(s, &pane_desc_maps, m.smaps ? _("/proc/PID/smaps; needs ptrace-read access") : NULL);
	printf("%-33s %-4s %8s %5s %10s %9s", "RANGE", "PERM", "OFFSET", "DEV", "INODE", "SIZE_KB");
	if (m.smaps)
		printf(" %8s %8s %8s", "RSS_KB", "PSS_KB", "SWAP_KB");
	printf("  PATH\n");
	for (size_t i = 0; i < m.n; i++) {
		const struct proc_map *p = &m.v[i];
		printf("%016llx-%016llx %-4s %08llx %02x:%02x %10llu %9llu", p->start, p->end, p->perms, p->offset,
		       p->dev_major, p->dev_minor, p->inode, (p->end - p->start) / 1024);
		if (m.smaps)
			printf(" %8ld %8ld %8ld", p->rss_kb, p->pss_kb, p->swap_kb);
		printf("  %s\n", esc(proc_map_name(p)));
	}
	printf(P_("%zu mapping\n", "%zu mappings\n", m.n), m.n);
	printf(_("\nPer file (like pmap -x):\n"));
	printf("%9s %9s", "MAPPINGS", "SIZE_KB");
	if (m.smaps)
		printf(" %8s %8s %8s %8s", "RSS_KB", "PSS_KB", "SWAP_KB", "DIRTY_KB");
	printf("  PATH\n");
	for (size_t i = 0; i < nagg; i++) {
		printf("%9zu %9llu", agg[i].count, agg[i].size_kb);
		if (m.smaps)
			printf(" %8ld %8ld %8ld %8ld", agg[i].rss_kb, agg[i].pss_kb, agg[i].swap_kb, agg[i].dirty_kb);
		printf("  %s\n", esc(agg[i].path));
	}
out:
	free(times);
	free(agg);
	proc_maps_free(&m);
}

const struct pane_desc pane_desc_maps = {
	.name = "maps",
	.title = N_("Maps"),
	.summary = N_("memory mappings (like pmap -x)"),
	.source = N_("/proc/PID/maps, smaps on demand; needs ptrace-read access"),
	.file = "maps",
	.refresh_ms = 1400,
	.help = "pane-maps",
	.show = show_maps,
};
