/* Tracepoint format files (src/perf/tp.c): the parser, binding to the
 * tracepoints pscope decodes by name, the field readers and the decoders,
 * with the input's own bytes as the raw record.
 * The seeds are this kernel's format files:
 * fuzz-seeds: perf/sched_switch.format perf/sched_wakeup*.format perf/sys_enter.format perf/sys_exit.format */
#include "fuzz.h"
#include "perf/perf.h"

static volatile uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_tp_format *fmt = malloc(sizeof(*fmt));
	struct perf_tp *tp = malloc(sizeof(*tp));
	char *buf = fuzz_copy(data, size);
	const unsigned char *raw = (const unsigned char *)buf;
	static const char *const systems[] = { "sched", "raw_syscalls" };

	if (fmt && tp && buf && perf_tp_parse(buf, size, fmt) == 0) {
		for (unsigned i = 0; i < fmt->nfields; i++) {
			int64_t v;
			char s[32];
			if (perf_tp_int(&fmt->fields[i], raw, size, &v) == 0)
				sink += (uint64_t)v;
			if (perf_tp_str(&fmt->fields[i], raw, size, s, sizeof(s)) == 0)
				sink += strlen(s);
		}
		for (size_t k = 0; k < sizeof(systems) / sizeof(systems[0]); k++) {
			struct ps_error e;
			struct perf_tp_event ev;
			if (perf_tp_bind(tp, systems[k], fmt, &e) < 0 || perf_tp_decode(tp, raw, size, &ev) < 0)
				continue;
			if (tp->kind == PERF_TP_SCHED_SWITCH)
				sink += strlen(ev.sw.prev_comm) + strlen(ev.sw.next_comm);
			else if (tp->kind == PERF_TP_SCHED_WAKEUP || tp->kind == PERF_TP_SCHED_WAKEUP_NEW)
				sink += strlen(ev.wk.comm);
			else if (tp->kind == PERF_TP_SYS_ENTER)
				sink += ev.enter.args[5];
			else if (tp->kind == PERF_TP_SYS_EXIT)
				sink += (uint64_t)ev.exit.ret;
		}
	}
	free(buf);
	free(tp);
	free(fmt);
	return 0;
}
