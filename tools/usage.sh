# The --help of the repository's shell scripts, sourced first thing with the script's arguments:
#
#   SCRIPT_OPTIONS="--quick" source "$(dirname "$0")/../tools/usage.sh" "$@"
#
# -h or --help prints the script's header comment (what it does and its "Usage:" line) and exits 0;
# an option (a word starting with "-" before any "--") that SCRIPT_OPTIONS does not list is refused
# with exit status 2. The header is the text of the comment lines from line 2 to the first line that
# is neither a comment nor blank, so it is written once, where a reader of the script looks for it.
for arg in "$@"; do
  case $arg in
    -h | --help)
      sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"
      exit 0
      ;;
    --) break ;;
    -*)
      if [[ " ${SCRIPT_OPTIONS:-} " != *" $arg "* ]]; then
        echo "$(basename "$0"): unknown option $arg (see $(basename "$0") --help)" >&2
        exit 2
      fi
      ;;
  esac
done
unset arg SCRIPT_OPTIONS
