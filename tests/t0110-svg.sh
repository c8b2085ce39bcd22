#!/bin/sh
. "$(dirname "$0")/lib.sh"
test_description 'report --svg: the plot of a performance bisection, rendered by Chromium'

gen_repo repo --seed 21 --commits 100 --culprits random:0.05
gen_repo flat --seed 22 --commits 60 --culprits none
gen_repo pf --seed 5 --commits 20
C=$(gen_field repo culprit)
C12=$(printf '%.12s' "$C")
P=$(gen_field pf culprit_path)
# the colour of the culprit's mark in lib/svg.c
CULPRIT_RGB='224 0 122'

if command -v chromium >/dev/null 2>&1; then
	test_set_prereq CHROMIUM
else
	say "# chromium not found: the rendering checks are skipped (apt-get install chromium)"
fi

# chromium_ ARGS...: headless Chromium with a profile of its own, its noise
# kept in chromium.err
chromium_ () {
	timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
		--no-first-run --user-data-dir="$TRASH_DIRECTORY/chromium-profile" \
		"$@" 2>>"$TRASH_DIRECTORY/chromium.err"
}

test_expect_success 'setup' '
	test -n "$C" && test -n "$P" &&
	noisy_bench noisy.json &&
	# png-stats.py PNG R G B [X0 X1 Y0 Y1]: width, height, the pixels that
	# are not white, those of colour R G B (give or take 40) and the least
	# and largest x of these within the box
	cat >png-stats.py <<-\PY
	import struct, sys, zlib
	data = open(sys.argv[1], "rb").read()
	assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
	pos, idat = 8, b""
	while pos < len(data):
	    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
	    body = data[pos + 8:pos + 8 + n]
	    if kind == b"IHDR":
	        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
	    elif kind == b"IDAT":
	        idat += body
	    pos += 12 + n
	assert depth == 8 and ctype in (2, 6), "PNG of depth %d, colour type %d" % (depth, ctype)
	bpp = 3 if ctype == 2 else 4
	raw, stride = zlib.decompress(idat), w * bpp
	rows, prev = [], bytearray(stride)
	for y in range(h):
	    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
	    for i in range(stride):
	        a = line[i - bpp] if i >= bpp else 0
	        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
	        if f == 1: line[i] = (line[i] + a) & 255
	        elif f == 2: line[i] = (line[i] + b) & 255
	        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
	        elif f == 4:
	            p = a + b - c
	            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
	            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
	    rows.append(line)
	    prev = line
	want = [int(v) for v in sys.argv[2:5]]
	box = [int(v) for v in sys.argv[5:9]] or [0, w, 0, h]
	other = hit = 0
	xs = []
	for y, line in enumerate(rows):
	    for x in range(w):
	        px = line[x * bpp:x * bpp + 3]
	        other += min(px) < 250
	        if all(abs(px[k] - want[k]) <= 40 for k in range(3)):
	            hit += 1
	            if box[0] <= x < box[1] and box[2] <= y < box[3]:
	                xs.append(x)
	print(w, h, other, hit, min(xs) if xs else -1, max(xs) if xs else -1)
	PY
	python3 -c "import zlib, struct"
'

test_expect_success 'a performance bisection and its plot: culprit marked, every commit labelled' '
	cd repo &&
	"$KBISECT" start good bad --bench ../noisy.json --seed 4 >out 2>err &&
	"$KBISECT" report --json >r.json &&
	test "$(json_get r.json verdict)" = culprit &&
	test "$(json_get r.json culprits[0].commit)" = $C &&
	"$KBISECT" report --svg ../plot.svg >svg.out &&
	test ! -s svg.out &&
	cd .. &&
	test "$(head -c 5 plot.svg)" = "<?xml" &&
	test "$(tail -n 1 plot.svg)" = "</svg>" &&
	python3 -c "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])" plot.svg &&
	grep "viewBox=\"0 0 900 500\"" plot.svg &&
	test_grep "<g id=\"culprit\"" plot.svg &&
	! grep "id=\"culprit-2\"" plot.svg &&
	! grep -i "nan\|inf[^o]" plot.svg &&
	grep ">noisy: latency (ms), lower is better</text>" plot.svg &&
	grep "verdict: <tspan font-weight=\"bold\">culprit</tspan>" plot.svg &&
	grep "range $(printf %.12s $(gen_field repo good)) (good) .. $(printf %.12s $(gen_field repo bad)) (bad)" plot.svg &&
	delta=$(awk -v d="$(json_get repo/r.json culprits[0].delta_pct)" "BEGIN { printf \"%+.1f%%\", d }") &&
	subject=$(json_get repo/r.json culprits[0].subject) &&
	test_grep ">culprit <tspan font-family=\"monospace\">$C12</tspan></tspan> $subject $delta</text>" plot.svg &&
	json_list repo/r.json steps .commit >commits &&
	test -s commits &&
	while read c; do
		grep ">$(printf %.12s $c)[ <]" plot.svg >/dev/null || { echo "no label for $c"; exit 1; }
	done <commits &&
	grep "revert</text>" plot.svg &&
	grep "GOOD</text>" plot.svg &&
	grep "BAD</text>" plot.svg
'

test_expect_success CHROMIUM 'Chromium renders it: the culprit band visible, inside, over the culprit'"'"'s label' '
	{
		echo "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>plot</title></head>" &&
		echo "<body style=\"margin: 0\">" &&
		sed 1d plot.svg &&
		sed "s/@C12@/$C12/" <<-\JS
		<script>
		window.addEventListener("load", function () {
			var svg = document.querySelector("svg"), c = document.getElementById("culprit"),
			    label = document.getElementById("commit-@C12@"), st, bb, sb, lines = [];
			function rect(e) {
				var r = e.getBoundingClientRect();
				return [r.left, r.top, r.width, r.height].map(function (v) {
					return v.toFixed(1);
				}).join(" ");
			}
			if (!c || !label) {
				lines.push("missing " + !c + " " + !label);
			} else {
				st = getComputedStyle(c);
				bb = c.getBBox();
				sb = svg.getBBox();
				lines.push("culprit " + rect(c), "svg " + rect(svg), "label " + rect(label),
					   "bbox " + bb.width.toFixed(1) + " " + bb.height.toFixed(1),
					   "svgbbox " + sb.width.toFixed(1) + " " + sb.height.toFixed(1),
					   "style " + st.visibility + " " + st.display + " " + st.opacity);
			}
			var out = document.createElement("pre");
			out.id = "result";
			out.textContent = lines.join("\n");
			document.body.appendChild(out);
			document.title = "measured";
		});
		</script>
		</body></html>
		JS
	} >page.html &&
	chromium_ --virtual-time-budget=2000 --dump-dom "file://$TRASH_DIRECTORY/page.html" >dom.html &&
	grep "<title>measured</title>" dom.html &&
	sed -n "/<pre id=\"result\">/,/<\/pre>/p" dom.html | sed "s/<[^>]*>//g" >result &&
	cat result &&
	! grep "^missing" result &&
	grep "^style visible inline 1$" result &&
	awk "
		{ v[\$1] = \$0; x[\$1] = \$2; y[\$1] = \$3; w[\$1] = \$4; h[\$1] = \$5 }
		END {
			if (!(\"culprit\" in v) || !(\"svg\" in v) || !(\"label\" in v)) {
				print \"results missing\"; exit 1
			}
			split(v[\"bbox\"], bb, \" \"); split(v[\"svgbbox\"], sb, \" \")
			if (!(bb[2] > 0 && bb[3] > 0 && w[\"culprit\"] > 0 && h[\"culprit\"] > 0)) {
				print \"culprit of no size\"; exit 1
			}
			if (!(sb[2] >= 800 && sb[3] >= 400)) { print \"svg too small\"; exit 1 }
			if (x[\"culprit\"] < x[\"svg\"] || y[\"culprit\"] < y[\"svg\"] ||
			    x[\"culprit\"] + w[\"culprit\"] > x[\"svg\"] + w[\"svg\"] ||
			    y[\"culprit\"] + h[\"culprit\"] > y[\"svg\"] + h[\"svg\"]) {
				print \"culprit outside the svg\"; exit 1
			}
			lc = x[\"label\"] + w[\"label\"] / 2
			cc = x[\"culprit\"] + w[\"culprit\"] / 2
			if (lc < x[\"culprit\"] || lc > x[\"culprit\"] + w[\"culprit\"] ||
			    lc - cc > 6 || cc - lc > 6) {
				print \"culprit at \" cc \", its label at \" lc; exit 1
			}
			# the label below the plot, the band above it
			if (y[\"label\"] < y[\"culprit\"] + h[\"culprit\"]) {
				print \"label not under the band\"; exit 1
			}
		}" result
'

test_expect_success CHROMIUM 'a screenshot of the SVG: not blank, the culprit colour over its slot' '
	chromium_ --screenshot="$TRASH_DIRECTORY/shot.png" --window-size=900,500 \
		"file://$TRASH_DIRECTORY/plot.svg" >/dev/null &&
	test -s shot.png &&
	band=$(sed -n "s/.*<g id=\"culprit\" class=\"culprit\"><rect x=\"\([0-9.]*\)\" y=\"\([0-9.]*\)\" width=\"\([0-9.]*\)\" height=\"\([0-9.]*\)\".*/\1 \2 \3 \4/p" plot.svg) &&
	echo "band $band" &&
	set -- $band &&
	box=$(awk -v x=$1 -v y=$2 -v w=$3 -v h=$4 "BEGIN { printf \"%d %d %d %d\", x - 20, x + w + 20, y + 12, y + h - 2 }") &&
	python3 png-stats.py shot.png $CULPRIT_RGB $box >stats &&
	cat stats &&
	read pw ph other hit xmin xmax <stats &&
	test $pw = 900 && test $ph = 500 &&
	test $other -gt 5000 &&
	test $hit -gt 300 &&
	# within the band (its 2-pixel stroke included), nowhere else beside it
	awk -v x=$1 -v w=$3 -v lo=$xmin -v hi=$xmax "BEGIN { exit !(lo >= x - 2 && hi <= x + w + 2 && hi - lo >= w - 4) }"
'

test_expect_success 'no regression: no culprit mark, the caption says so' '
	cd flat &&
	test_expect_code 3 "$KBISECT" start good bad --bench ../noisy.json --seed 1 >out 2>err &&
	test_expect_code 3 "$KBISECT" report --svg ../flat.svg &&
	cd .. &&
	test "$(tail -n 1 flat.svg)" = "</svg>" &&
	python3 -c "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])" flat.svg &&
	! grep "id=\"culprit" flat.svg &&
	test_grep "<text id=\"caption\"[^>]*><tspan font-weight=\"bold\">no regression</tspan>" flat.svg &&
	grep "verdict: <tspan font-weight=\"bold\">no-regression</tspan>" flat.svg &&
	grep "id=\"good-level\"" flat.svg && grep "id=\"bad-level\"" flat.svg
'

test_expect_success CHROMIUM 'no regression: nothing of the culprit colour in the screenshot' '
	chromium_ --screenshot="$TRASH_DIRECTORY/flat.png" --window-size=900,500 \
		"file://$TRASH_DIRECTORY/flat.svg" >/dev/null &&
	python3 png-stats.py flat.png $CULPRIT_RGB >stats &&
	cat stats &&
	read pw ph other hit xmin xmax <stats &&
	test $other -gt 5000 &&
	test $hit = 0
'

test_expect_success 'a pass/fail session has nothing to plot: exit 1, a clear message, no file' '
	cd pf &&
	"$KBISECT" start good bad --command "test ! -e $P" --seed 1 >out 2>err &&
	test_expect_code 1 "$KBISECT" report --svg ../pf.svg >out 2>err &&
	test_grep "no metric to plot" err &&
	test_grep "pass/fail" err &&
	test ! -e ../pf.svg &&
	test ! -e ../pf.svg.tmp
'

test_done
