/* Every detail pane, in tab order: one PANE(name) line each, for the
 * pane_desc_NAME of src/pane/NAME.c and the pane_NAME of ui/pane-NAME.c.
 * The registry (pane_descs[], enum pane_id), the detail screen's panes,
 * the pscoperc names and `pscope show --pane` are made from this list:
 *   #define PANE(name) ...
 *   #include "pane/panes.h"
 *   #undef PANE
 * No include guard: it is meant to be included more than once. */
PANE(status)
PANE(fd)
PANE(maps)
PANE(mem)
PANE(threads)
PANE(time)
