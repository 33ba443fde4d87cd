/* /proc/PID/maps and smaps, the per-file aggregate, and the core writer's
 * view of them (mapping decisions, the NT_FILE note).
 * fuzz-seeds: detail/maps.txt detail/smaps.txt core-smaps.txt */
#include "fuzz.h"
#include "core/maps.h"
#include "core/notes.h"
#include "proc/maps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *p = fuzz_copy(data, size);
	struct proc_maps m = { 0 };
	struct core_maps cm = { 0 };
	struct proc_map_agg *agg;
	size_t n;

	for (int smaps = 0; smaps < 2; smaps++)
		if (proc_maps_parse(p, size, smaps, &m) == 0 && proc_maps_aggregate(&m, &agg, &n) == 0)
			free(agg);
	proc_maps_free(&m);
	if (core_maps_parse(p, size, &cm) == 0) {
		struct core_notes nb = { 0 };
		core_maps_decide(&cm, size ? data[0] : 0x33, size > 1 && (data[1] & 1));
		core_nt_file_build(&cm, 4096, &nb);
		core_notes_free(&nb);
	}
	core_maps_free(&cm);
	free(p);
	return 0;
}
