# Translations in the build tree: pscope run from here finds its messages
# in po/locale/LL/LC_MESSAGES/pscope.mo (installed ones come from po/'s own
# Makefile, under $(localedir)).
if USE_NLS_AM
BUILD_MO = $(patsubst %,po/locale/%/LC_MESSAGES/$(PACKAGE).mo,$(shell cat $(srcdir)/po/LINGUAS))
all-local: $(BUILD_MO)
po/locale/%/LC_MESSAGES/$(PACKAGE).mo: $(srcdir)/po/%.po
	@$(MKDIR_P) $(@D)
	$(AM_V_GEN)$(MSGFMT) -c -o $@ $<
CLEANFILES += $(BUILD_MO)
endif
EXTRA_DIST += po/local.mk
EXTRA_DIST += po/potfiles.sh
