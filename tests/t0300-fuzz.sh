#!/bin/sh
. "$(dirname "$0")/lib.sh"
test_description 'fuzzing the parsers of benchmark files, machine files and benchmark output'

FUZZ_DIR=$TEST_DIR/fuzz
SECONDS_EACH=${KBISECT_FUZZ_SECONDS:-60}

# libFuzzer comes with clang: a program of one empty harness must build
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return 0; }' >probe.c
if command -v clang >/dev/null 2>&1 &&
   clang -fsanitize=fuzzer,address,undefined -o probe probe.c >/dev/null 2>&1; then
	test_set_prereq FUZZER
else
	say "# clang with libFuzzer not found: the fuzzers are skipped (apt-get install clang)"
fi

test_expect_success FUZZER 'make fuzz builds the three harnesses' '
	make -C "$TEST_DIR/.." --no-print-directory fuzz >make.out 2>&1 ||
		{ cat make.out; exit 1; }
	for name in bench machine metric; do
		test -x "$FUZZ_DIR/fuzz_$name" || { echo "no fuzz_$name"; exit 1; }
	done
'

# each file of the corpus once, no fuzzing: the inputs of past findings
# among them
test_expect_success FUZZER 'the committed corpus replays with no finding' '
	for name in bench machine metric; do
		ls "$FUZZ_DIR/corpus/$name/"* >files &&
		test "$(wc -l <files)" -ge 10 &&
		"$FUZZ_DIR/fuzz_$name" $(cat files) >replay.$name 2>&1 || {
			echo "fuzz_$name fails on its corpus:"; tail -n 40 replay.$name; exit 1; }
		test "$(grep -c "^Executed " replay.$name)" = "$(wc -l <files)"
	done
'

test_expect_success FUZZER "each fuzzer runs $SECONDS_EACH s with no finding" '
	TMPDIR=$TRASH_DIRECTORY sh "$FUZZ_DIR/run.sh" "$SECONDS_EACH" >run.out 2>&1 ||
		{ cat run.out; exit 1; }
	cat run.out &&
	test "$(grep -c "^fuzz_[a-z]*: no finding in $SECONDS_EACH s" run.out)" = 3 &&
	! ls -d "$TRASH_DIRECTORY"/kbisect-fuzz.* 2>/dev/null
'

test_done
