/* pscope stack --goroutines: the goroutines of a Go process (stack-go.c). */
#ifndef PS_CMD_STACK_GO_H
#define PS_CMD_STACK_GO_H

#include <stdbool.h>

struct stk_dump;
struct json_object;

/* Text: the counts by state, then one entry per group of goroutines with
 * the same state and top frames. */
void stack_go_print(const struct stk_dump *d, bool source);
/* JSON: root["goroutines"] (null with "goroutines_error" when not read). */
void stack_go_json(struct json_object *root, const struct stk_dump *d, bool source);

#endif
