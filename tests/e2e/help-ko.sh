#!/bin/sh
# The Korean help texts: every English data/help/NAME.txt has a Korean
# data/help/ko/NAME.txt (and nothing else is there) with the same sections
# and the same keys, fields and columns, installed like the English ones and
# 80 columns wide as a terminal counts them (Hangul is two columns). In the
# TUI, LANG=ko_KR.UTF-8 shows the Korean text and LANG=C the English one.
. "$top_srcdir/tests/lib.sh"
cd "$top_srcdir" || exit 1

for f in data/help/*.txt; do
	n=$(basename "$f")
	k=data/help/ko/$n
	check "data/help/ko/$n exists and is not empty" test -s "$k"
	[ -s "$k" ] || continue
	check "data/help/ko/$n is installed (nobase_dist_pkgdata_DATA)" \
		sh -c "cat Makefile.am */*.mk */*/*.mk 2>/dev/null | grep -q 'data/help/ko/$n'"
	check "data/help/ko/$n has no tabs or control characters" sh -c "! LC_ALL=C grep -q '[[:cntrl:]]' '$k'"
	check "data/help/ko/$n is Korean" grep -qE '(다|의|을|를|는)' "$k"
	# Width, sections and keys, measured in Python (wcwidth as a terminal does).
	out=$(python3 - "$f" "$k" <<'PY'
import re, sys, unicodedata
def width(s):
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
en = open(sys.argv[1], encoding="utf-8").read().splitlines()
ko = open(sys.argv[2], encoding="utf-8").read().splitlines()
bad = []
for i, l in enumerate(ko, 1):
    if width(l) > 79:
        bad.append("line %d is %d columns" % (i, width(l)))
heads = lambda t: [l for l in t if l and not l[0].isspace()]
if len(heads(en)) != len(heads(ko)):
    bad.append("%d sections, English has %d" % (len(heads(ko)), len(heads(en))))
# A key, field or column line: two spaces (or more), a token, two spaces.
# Plain lowercase English words ("mouse", "other") are translated.
def keys(t):
    s = set()
    for l in t:
        m = re.match(r"^ {2,4}(\S+)(?: \S+)*? {2,}\S", l)
        if m and not re.fullmatch(r"[a-z]{3,},?", m.group(1)):
            s.add(m.group(1))
    return s
words = set()
for w in re.findall(r"[\x21-\x7e]+", "\n".join(ko)):
    words.update((w, w.strip("()\":;,.")))
missing = sorted(keys(en) - words)
if missing:
    bad.append("keys missing: " + " ".join(missing))
print("; ".join(bad))
PY
)
	ok "$([ -z "$out" ]; echo $?)" "data/help/ko/$n: fits 80 columns, same sections and keys as the English"
	[ -z "$out" ] || diag "$out"
done
for k in data/help/ko/*.txt; do
	n=$(basename "$k")
	check "data/help/ko/$n translates an English help text" test -e "data/help/$n"
done

need_korean "the help is English whatever the locale"

start_target lab-fdleak 1000 || exit 1
T=$TPID
tui_start 100x30 "env LANG=ko_KR.UTF-8 LC_ALL= LANGUAGE= $PSCOPE -p $T"
check "Korean: the detail screen opens" tui_wait_for "lab-fdleak"
tui_keys F1
check "Korean: F1 on a pane shows its Korean help" tui_wait_for '^ *Status 창'
check "Korean: ... with the Korean field explanations" tui_wait_for '깨울 수 있음'
tui_keys Escape
tui_keys Escape
tui_keys F1
check "Korean: F1 on the list shows the Korean list help" tui_wait_for '^ *프로세스 목록'
check "Korean: ... and the Korean explanation of its keys" tui_wait_for '바뀐 키'
tui_keys q
tui_keys q

tui_start 100x30 "env LANG=C LC_ALL= LANGUAGE= $PSCOPE -p $T"
check "C: the detail screen opens" tui_wait_for "lab-fdleak"
tui_keys F1
check "C: F1 on a pane shows the English help" tui_wait_for '^ *Status pane'
tui_keys Escape
tui_keys Escape
tui_keys F1
check "C: F1 on the list shows the English list help" tui_wait_for '^ *Process list'
check "C: no Hangul on the screen" sh -c "! tmux -L $TMUX_S capture-pane -p -t $TMUX_S | grep -qE '(다|의|을|를|는)'"
tui_keys q
tui_keys q
done_testing
