/* The goroutines of a Go process in the stack dump (internal.h,
 * stk_go_read): read from the runtime's allgs once the threads run again
 * (a goroutine that runs may have moved since; a parked one has not), and
 * their frames named with the dump's symbolizer. */
#include "stack/internal.h"
#include "golang/golang.h"
#include "python/python.h"
#include "i18n.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void stk_go_read(struct stk_dump *d, int dirfd, const struct py_mem *pm)
{
	struct go_mem m = { pm->read, pm->arg };
	struct ps_error e;
	int fd = openat(dirfd, "exe", O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(d->go_error, sizeof(d->go_error), _("goroutines not read: its executable cannot be opened (%s)"),
			 strerror(errno));
		return;
	}
	d->go = calloc(1, sizeof(*d->go));
	if (!d->go) {
		close(fd);
		strlcpy_ps(d->go_error, _("out of memory"), sizeof(d->go_error));
		return;
	}
	ps_error_clear(&e);
	int r = go_goroutines(fd, d->syms, &m, d->go, &e);
	close(fd);
	if (r < 0) {
		strlcpy_ps(d->go_error, e.msg, sizeof(d->go_error));
		go_list_free(d->go);
		free(d->go);
		d->go = NULL;
		return;
	}
	for (size_t i = 0; i < d->go->n; i++) {
		struct go_g *g = &d->go->g[i];
		for (size_t k = 0; k < g->n; k++)
			g->sym[k] = sym_lookup(d->syms, g->pcs[k], k == 0);
	}
}
