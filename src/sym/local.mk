# The one symbolizer: shared modules, process views, kernel and JIT symbol
# tables, demangling, the unwinder over stack copies.
libpscope_a_SOURCES += src/sym/sym.h src/sym/local.h src/sym/module.c \
	src/sym/proc.c src/sym/kernel.c src/sym/jit.c src/sym/ehframe.c src/sym/demangle.c src/sym/file.c src/sym/srcfile.c src/sym/lines.c \
	src/sym/unwind.h src/sym/unwind.c
