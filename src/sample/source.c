/* The one loop that drives every sampler source (source.h): the sampler
 * job of the hot-functions and Hot processes screens and `pscope top` both run it. */
#include "sample/source.h"
#include "sample/sample.h"
#include "i18n.h"
#include "util.h"

#include <errno.h>

#define ROUND_MS 100
#define TICK_NS 1000000000ULL

void samp_source_close(struct samp_source *src)
{
	if (src)
		src->ops->close(src);
}

enum samp_end samp_source_run(struct samp_source *src, const struct samp_run *run, char *reason, size_t size,
			      struct ps_error *e)
{
	const struct samp_source_ops *ops = src->ops;
	uint64_t next = now_ns() + TICK_NS;

	if (size)
		reason[0] = '\0';
	for (;;) {
		uint64_t now = now_ns();
		if ((run->stop && run->stop(run->arg)) || (run->deadline_ns && now >= run->deadline_ns))
			return SAMP_END_STOPPED;
		int ms = ROUND_MS;
		if (run->deadline_ns && (run->deadline_ns - now) / 1000000 < ROUND_MS)
			ms = (int)((run->deadline_ns - now) / 1000000);
		int pr = ops->poll(src, ms);
		if (pr == -ESRCH) {
			snprintf(reason, size, "%s", _("the process exited"));
			return SAMP_END_TARGET;
		}
		if (run->samples && ops->count(src) >= run->samples)
			return SAMP_END_STOPPED;
		if (pr == -ESTALE) {
			samp_end_exec(ops->exec_comm(src), reason, size);
			return SAMP_END_TARGET;
		}
		if (run->want) {
			int freq = ops->freq(src);
			bool idle = false;
			run->want(run->arg, &freq, &idle);
			if (ops->set(src, freq, idle, e) < 0) {
				if (e->code != EINVAL)
					return SAMP_END_FAILED;
				/* Refused before anything changed: go on at the old rate. */
				if (run->refused)
					run->refused(run->arg, ops->freq(src), e);
			}
		}
		if ((run->tick || ops->needs_ticks) && now_ns() >= next) {
			next += TICK_NS;
			if (next < now_ns())
				next = now_ns() + TICK_NS;
			struct samp_snapshot *snap = ops->publish(src, NULL);
			if (run->tick && snap)
				run->tick(run->arg, snap);
			else
				samp_snapshot_free(snap);
		}
	}
}
