#!/bin/sh
# Translations: the Korean catalogue is complete and valid and keeps to
# the glossary's one vocabulary, pscope speaks Korean under a Korean locale
# and English under LANG=C.
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

# One vocabulary: the glossary's last column lists, in backquotes, the
# words it rejects; `X` must be in no msgstr (nor in the Korean lab text,
# manual page and help texts), `X@word` in no msgstr of a message whose
# msgid has the English word (창 is right for a pane, wrong for a window).
glossary="$top_srcdir/doc/ko/glossary.md"
sed -n 's/^|[^|]*|[^|]*|[^|]*|\(.*\)|$/\1/p' "$glossary" | grep -o '`[^`]*`' | tr -d '`' >"$tmp/rejected"
check "the glossary lists rejected variants (at least 20)" test "$(wc -l <"$tmp/rejected")" -ge 20
# The msgstr lines of PO (a file) holding a rejected variant, as
# "VARIANT: line" (one whose variant a wrap splits: "VARIANT: (wrapped)").
rejected_in() { # rejected_in PO
	while IFS= read -r v; do
		case $v in
		*@*) text=${v%@*}
			# the word in either case ([wW][iI]...: msggrep -i misses some)
			word=$(printf '%s\n' "${v##*@}" | awk '{ for (i = 1; i <= length($0); i++) { c = substr($0, i, 1)
				printf "%s", (tolower(c) != toupper(c) ? "[" tolower(c) toupper(c) "]" : c) } }')
			msggrep -K -E -e "(^|[^[:alpha:]])$word([^[:alpha:]]|\$)" "$1" | msggrep -T -F -e "$text" - ;;
		*) text=$v; msggrep -T -F -e "$text" "$1" ;;
		esac >"$tmp/hit.po" 2>/dev/null
		# the header is the one message when nothing matched
		[ "$(grep -c '^msgid ' "$tmp/hit.po")" -gt 1 ] || continue
		grep -v '^#' "$tmp/hit.po" | grep -F -- "$text" | sed "s/^/$v: /" | grep . || echo "$v: (wrapped)"
	done <"$tmp/rejected"
}
bad=$(rejected_in "$top_srcdir/po/ko.po")
ok "$(test -z "$bad"; echo $?)" "no msgstr of po/ko.po uses a word the glossary rejects"
[ -z "$bad" ] || printf '%s\n' "$bad" | head -20 | sed 's/^/#   /'
# the check itself finds a rejected word, plain and scoped
cat >"$tmp/bad.po" <<'EOF'
msgid ""
msgstr "Content-Type: text/plain; charset=UTF-8\n"

msgid "no signal sent"
msgstr "신호를 보내지 않음"

msgid "a Window"
msgstr "창 하나"

msgid "a pane"
msgstr "창 둘"
EOF
check "... the check finds them (a plain and a scoped variant, not the pane)" \
	test "$(rejected_in "$tmp/bad.po" | sort | tr '\n' '|')" = '신호: msgstr "신호를 보내지 않음"|창@window: msgstr "창 하나"|'
docs=$(grep -v @ "$tmp/rejected" | while IFS= read -r v; do
	(cd "$top_srcdir" && grep -n -F -- "$v" doc/lab.ko.md doc/ko/pscope.1 data/help/ko/*.txt) | sed "s/^/$v: /"
done)
ok "$(test -z "$docs"; echo $?)" "the Korean lab text, manual page and help texts use none of them either"
[ -z "$docs" ] || printf '%s\n' "$docs" | head -20 | sed 's/^/#   /'

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
