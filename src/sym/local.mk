# The one symbolizer: shared modules, process views, kernel and JIT symbol
# tables, demangling.
libpscope_a_SOURCES += src/sym/sym.h src/sym/local.h src/sym/module.c \
	src/sym/proc.c src/sym/kernel.c src/sym/demangle.c
