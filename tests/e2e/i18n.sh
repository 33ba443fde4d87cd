#!/bin/sh
# Translations: the Korean catalogue is complete and valid, pscope speaks
# Korean under a Korean locale and English under LANG=C.
. "$top_srcdir/tests/lib.sh"

if ! grep -q '^#define ENABLE_NLS 1' "$top_builddir/config.h"; then
	skip "built with --disable-nls: no translations to check"
	done_testing; exit 0
fi

stats=$(msgfmt --check --statistics -o /dev/null "$top_srcdir/po/ko.po" 2>&1)
ok $? "po/ko.po passes msgfmt --check"
case $stats in
*fuzzy*|*untranslated*) ok 1 "po/ko.po: every message translated, none fuzzy ($stats)" ;;
*) ok 0 "po/ko.po: every message translated, none fuzzy ($stats)" ;;
esac

# Every message the sources have today is in po/ko.po, translated: the
# catalogue merged with a template made now from po/POTFILES.in.
tmp=$(mktemp -d /tmp/pscope-i18n.XXXXXX)
at_exit "rm -rf $tmp"
opts=$(sed -n '/^XGETTEXT_OPTIONS/,/[^\\]$/p' "$top_srcdir/po/Makevars" | sed 's/^XGETTEXT_OPTIONS *= *//; s/\\$//' | tr '\n' ' ')
# shellcheck disable=SC2086
(cd "$top_srcdir" && xgettext $opts -L C -f po/POTFILES.in -o "$tmp/now.pot") 2>"$tmp/err"
ok $? "xgettext makes a template from po/POTFILES.in"
msgmerge -q --no-fuzzy-matching "$top_srcdir/po/ko.po" "$tmp/now.pot" -o "$tmp/now.po" 2>>"$tmp/err"
stats=$(msgfmt --statistics -o /dev/null "$tmp/now.po" 2>&1)
case $stats in
*fuzzy*|*untranslated*) ok 1 "every message in the sources has its Korean in po/ko.po ($stats)"
	msgattrib --untranslated --no-obsolete "$tmp/now.po" 2>/dev/null | grep '^msgid' | grep -vx 'msgid ""' | head -20 | sed 's/^/#   /' ;;
*) ok 0 "every message in the sources has its Korean in po/ko.po ($stats)" ;;
esac

if ! locale -a 2>/dev/null | grep -qi '^ko_KR\.utf-\?8$'; then
	skip "the ko_KR.UTF-8 locale is not generated here (./bootstrap --deps makes it)"
else
	first=$(LANG=ko_KR.UTF-8 LC_ALL= LANGUAGE= "$PSCOPE" --help | head -n 1)
	check "pscope --help is Korean under LANG=ko_KR.UTF-8" \
		test "$first" = "사용법: pscope [옵션]...             대화형 검사기"
	err=$(LANG=ko_KR.UTF-8 LC_ALL= LANGUAGE= "$PSCOPE" nosuch 2>&1)
	check "a usage error is Korean under LANG=ko_KR.UTF-8" \
		test "$err" = "pscope: 알 수 없는 명령 'nosuch'
자세한 내용은 'pscope --help'를 참고하세요."
fi
first=$(LANG=C LC_ALL=C LANGUAGE= "$PSCOPE" --help | head -n 1)
check "pscope --help is English under LANG=C" \
	test "$first" = "Usage: pscope [OPTION]...            interactive inspector"
done_testing
