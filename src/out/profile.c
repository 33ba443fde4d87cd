/* Saving a profile file (profile.h). */
#include "out/profile.h"
#include "out/save.h"

struct profile_args {
	out_profile_fn write;
	const struct samp_snapshot *s;
	enum samp_window w;
	pid_t tid;
	unsigned long long *total;
};

static int profile_write(FILE *f, void *arg)
{
	struct profile_args *a = arg;

	return a->write(f, a->s, a->w, a->tid, a->total);
}

int out_profile_save(const char *path, out_profile_fn write, const struct samp_snapshot *s, enum samp_window w,
		     pid_t tid, unsigned long long *total, struct ps_error *e)
{
	struct profile_args a = { write, s, w, tid, total };

	return out_save(path, profile_write, &a, e);
}
