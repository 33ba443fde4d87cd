/* A flame graph of a snapshot: its call stacks merged into a tree, each
 * node a frame in the context of its callers, weighed in the profile's
 * unit (samples, or ns, faults: samp_snapshot.unit). A pure function of
 * the snapshot, like the other views; the TUI's flame view, the SVG, and
 * the exports lay out the same tree. */
#ifndef PS_SAMPLE_FLAME_H
#define PS_SAMPLE_FLAME_H

#include "sample/sample.h"

#define FLAME_NONE UINT32_MAX

struct samp_flame_node {
	uint32_t func;              /* index into funcs[]; FLAME_NONE: the root or a thread */
	pid_t tid;                  /* a thread node: its TID (machine-wide: process slot) */
	uint32_t parent, child, next; /* first child (by name), next sibling; FLAME_NONE */
	unsigned depth;             /* root 0, threads 1, outermost frames 2 */
	unsigned long long total;   /* weight of the stacks through here */
	unsigned long long self;    /* of those, ending here */
	unsigned long long x;       /* where it starts, in weight from the left edge */
};

struct samp_flame {
	unsigned n;
	struct samp_flame_node *nodes; /* [0] the root ("all") */
	unsigned maxdepth;
	enum samp_unit unit;
};

/* The stacks of window w, thread filter tid (0: all), as a tree: root,
 * then one node per thread (as the folded files start), then the frames
 * outermost first; siblings in name order (flamegraph.pl's). 0 or
 * -ENOMEM (out left empty). */
int samp_flame_build(const struct samp_snapshot *s, enum samp_window w, pid_t tid, struct samp_flame *out);
void samp_flame_free(struct samp_flame *f);

/* The raw (hostile) name of node i for people: "all", the thread's
 * "comm-TID", or the function's name (Python: "qualname (file:line)"). */
const char *samp_flame_name(const struct samp_snapshot *s, const struct samp_flame *f, unsigned i, char *buf,
			    size_t size);

/* Mark (marks[i] = 1) the nodes whose function name or module holds text
 * (case-insensitive) and return the weight they cover: each stack counted
 * once, however many matching frames it has (flamegraph.pl's "Matched").
 * Only the subtree of node `under` is searched and counted. */
unsigned long long samp_flame_match(const struct samp_snapshot *s, const struct samp_flame *f, unsigned under,
				    const char *text, unsigned char *marks);

/* The frame's kind, for colours: */
enum samp_flame_kind { FLAME_K_THREAD, FLAME_K_NATIVE, FLAME_K_KERNEL, FLAME_K_PYTHON, FLAME_K_JIT,
		       FLAME_K_UNKNOWN, FLAME_K_COUNT };
enum samp_flame_kind samp_flame_kind(const struct samp_snapshot *s, const struct samp_flame *f, unsigned i);
/* A small hash of the node's module (0..n-1), for colours by module. */
unsigned samp_flame_module_slot(const struct samp_snapshot *s, const struct samp_flame *f, unsigned i, unsigned n);

#endif
