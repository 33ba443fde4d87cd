/* The rows of a stack dump's body (ui/stack-view.c) and their words
 * (ui/stack-words.c): what each row says, in the locale's language or in
 * English (en), for drawing and for '/' (which searches both). */
#ifndef PS_UI_STACK_ROWS_H
#define PS_UI_STACK_ROWS_H

#include <stdbool.h>
#include <stddef.h>

struct stk_dump;
struct stk_thread;

enum row_kind { ROW_PYERR, ROW_JVM, ROW_CYCLE, ROW_EDGE, ROW_HELD, ROW_BLANK, ROW_GROUP, ROW_TIDS, ROW_THREAD, ROW_FRAME, ROW_INLINE, ROW_CFI, ROW_END, ROW_GOHEAD, ROW_GOGROUP, ROW_GOFRAME };

struct row {
	enum row_kind kind;
	int group;
	size_t a, b;         /* thread index / cycle, edge / frame, inline */
};

void stack_cycle_msg(const struct stk_dump *d, const struct row *r, bool en, char *buf, size_t size);
void stack_edge_msg(const struct stk_dump *d, const struct row *r, bool en, char *buf, size_t size);
void stack_stop_msg(const struct stk_dump *d, const struct row *r, bool en, char *buf, size_t size);
void stack_group_behind_msg(const struct stk_dump *d, const struct row *r, bool en, char *buf, size_t size);
/* Go: the goroutines' header (counts, or why they were not read) and a
 * group's line ("20 goroutines [waiting: chan receive]"). */
void stack_go_head_msg(const struct stk_dump *d, bool en, char *buf, size_t size);
void stack_go_group_msg(const struct stk_dump *d, const struct row *r, bool en, char *buf, size_t size);
void stack_thread_behind_msg(const struct stk_thread *t, bool en, char *buf, size_t size);

#endif
