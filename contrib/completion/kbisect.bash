# bash completion for kbisect: subcommands, their options (read from
# 'kbisect COMMAND --help'), revisions, benchmark and machine names, and
# the values some options take.  Installed by 'make install'; to use it
# from a checkout: . contrib/completion/kbisect.bash

# _kbisect_names SUB: the names of configs/SUB/*.json where kbisect looks
# for them: beside the program (a checkout) and under share/kbisect
_kbisect_names()
{
	local prog dir f
	prog=$(command -v -- "${COMP_WORDS[0]}" 2>/dev/null) || return
	dir=$(dirname -- "$prog")
	for f in "$dir/configs/$1"/*.json "$dir/../share/kbisect/$1"/*.json \
		/usr/local/share/kbisect/"$1"/*.json; do
		[ -e "$f" ] || continue
		f=${f##*/}
		printf '%s\n' "${f%.json}"
	done
}

# the revisions of the repository: branches, tags, HEAD
_kbisect_revs()
{
	git for-each-ref --format='%(refname:short)' refs/heads refs/tags refs/remotes \
		2>/dev/null
	printf '%s\n' HEAD
}

_kbisect()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local cmd=${COMP_WORDS[1]} opts
	local cmds="start resume run status log replay good bad skip unmark build compare report reset target help"

	COMPREPLY=()
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$cmds --help --version" -- "$cur"))
		return
	fi
	case $prev in
	--bench)
		COMPREPLY=($(compgen -W "$(_kbisect_names benchmarks)" -- "$cur")
			   $(compgen -f -- "$cur"))
		return ;;
	--target)
		COMPREPLY=($(compgen -W "local libvirt ssh:// $(_kbisect_names machines)" -- "$cur")
			   $(compgen -f -- "$cur"))
		return ;;
	--repo)
		COMPREPLY=($(compgen -d -- "$cur"))
		return ;;
	--db|--kconfig)
		COMPREPLY=($(compgen -f -- "$cur"))
		[ "$prev" = --kconfig ] &&
			COMPREPLY+=($(compgen -W "tinyconfig defconfig" -- "$cur"))
		return ;;
	--build-ahead)
		COMPREPLY=($(compgen -W "auto on off" -- "$cur"))
		return ;;
	--rebuild-check)
		COMPREPLY=($(compgen -W "on off" -- "$cur"))
		return ;;
	--boot-failure)
		COMPREPLY=($(compgen -W "skip bad" -- "$cur"))
		return ;;
	--command|--seed|--scale|--confidence|--min-rate|--signature|--build-jobs|--cc-wrapper|-n)
		return ;;
	esac
	if [[ $cur == -* ]]; then
		opts=$("${COMP_WORDS[0]}" "$cmd" --help 2>/dev/null |
			sed -n 's/^  \(--*[a-z][-a-z]*\).*/\1/p')
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	case $cmd in
	replay)
		COMPREPLY=($(compgen -f -- "$cur")) ;;
	start|good|bad|skip|unmark|build|compare|run)
		COMPREPLY=($(compgen -W "$(_kbisect_revs)" -- "$cur")) ;;
	help)
		COMPREPLY=($(compgen -W "$cmds" -- "$cur")) ;;
	esac
}

complete -F _kbisect kbisect
