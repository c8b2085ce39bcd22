#!/bin/sh
. "$(dirname "$0")/lib.sh"
test_description 'bash completion: subcommands, options, revisions, benchmarks, machines, values'

command -v bash >/dev/null 2>&1 || test_skip_all 'bash is not installed'
COMPLETION=$TEST_DIR/../contrib/completion/kbisect.bash

# complete WORD...: what the completion offers for the last WORD (one a
# line, sorted), kbisect under test as the command
complete_words () {
	bash -c '
		. "$1" || exit 1
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		_kbisect
		printf "%s\n" "${COMPREPLY[@]}" | sort
	' complete "$COMPLETION" "$KBISECT" "$@"
}

test_expect_success 'setup' '
	git init -q repo && (cd repo && git commit -q --allow-empty -m one &&
		git tag v6.1 && git commit -q --allow-empty -m two && git tag v6.2)
'

test_expect_success 'subcommands' '
	complete_words st >out &&
	printf "start\nstatus\n" >want &&
	test_cmp want out &&
	complete_words re >out &&
	printf "replay\nreport\nreset\nresume\n" >want &&
	test_cmp want out
'

test_expect_success 'the options of a subcommand, from its --help' '
	complete_words start --ben >out &&
	echo --bench >want &&
	test_cmp want out &&
	complete_words start --fl >out &&
	echo --flaky >want &&
	test_cmp want out &&
	complete_words report --m >out &&
	grep -x -- --mail out &&
	! grep -x -- --flaky out
'

test_expect_success 'revisions of the repository' '
	(cd repo && complete_words start v6) >out &&
	printf "v6.1\nv6.2\n" >want &&
	test_cmp want out
'

test_expect_success 'benchmark and machine names, and the values of options' '
	complete_words start --bench empty >out &&
	grep -x emptyfiles500k out &&
	complete_words start --target vm >out &&
	grep -x vm out && grep -x vm-small out &&
	complete_words start --boot-failure "" >out &&
	printf "bad\nskip\n" >want &&
	test_cmp want out &&
	complete_words start --build-ahead o >out &&
	printf "off\non\n" >want &&
	test_cmp want out
'

test_done
