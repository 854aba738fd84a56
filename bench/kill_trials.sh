#!/usr/bin/env bash
# kill_trials.sh: kill -9 at random moments during the three writers of a
# .dab file, and check what is left: no file, a file that is refused, or a
# file that opens and is right; then the rerun must finish with the right
# answer.  "wrong" (a file that opens with a wrong value, or a rerun that
# differs from a clean run) must stay 0; the script exits 1 otherwise.
#
#   bench/kill_trials.sh [TRIALS] [KINDS]
#     TRIALS  per kind (default 200)
#     KINDS   any of: build layered store (default all three)
#       build    dab build BOARD --full-array   (BUILD_BOARD, default 3x3)
#       layered  dab build BOARD, layered, resumable (LAYER_BOARD, default 3x3)
#       store    dab solve STORE_POS --tb DIR, a search writing its solved
#                store with a checkpoint every 0.02 s (default 2x5)
# Kill moments are uniform over 1.2x a clean run's wall time.  Prints one
# table row per kind, wall time and peak RSS of the clean runs.
set -u
cd "$(dirname "$0")/.."
DAB=${DAB:-bin/dab}
TRIALS=${1:-200}
KINDS=${2:-build layered store}
BUILD_BOARD=${BUILD_BOARD:-3x3}
LAYER_BOARD=${LAYER_BOARD:-3x3}
STORE_POS=${STORE_POS:-2x5}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export DAB_TB_NO_PROJECT=1
wrong_total=0
notes=""

# timed CMD...: runs it once, sets $secs and $rss_mb (peak RSS).
timed() {
  /usr/bin/time -f "%e %M" -o "$T/time" "$@" >/dev/null 2>&1
  read -r secs rss < "$T/time"
  rss_mb=$((rss / 1024))
}

# rand_delay SPAN: a uniform moment in [0, SPAN) seconds.
rand_delay() { awk -v s="$1" -v r="$RANDOM$RANDOM" 'BEGIN { srand(r); printf "%.3f", rand() * s }'; }

# kill_at DELAY CMD...: starts CMD, kill -9 after DELAY s; $finished=1
# when it ended first.
kill_at() {
  local delay=$1
  shift
  "$@" >/dev/null 2>&1 &
  local pid=$!
  sleep "$delay"
  finished=1
  kill -9 "$pid" 2>/dev/null && finished=0
  wait "$pid" 2>/dev/null
}

# checksums FILE: the per-layer checksums (equal files hold equal tables).
checksums() { "$DAB" info "$1" --layers 2>/dev/null | grep xxh3_128; }

# rerun_tally WHAT CMD...: the rerun after a kill is right when CMD succeeds.
rerun_tally() {
  local what=$1
  shift
  if "$@"; then
    resumed=$((resumed + 1))
  else
    wrong=$((wrong + 1))
    echo "wrong: $what" >&2
  fi
}

# same_tables FILE REF: FILE passes check and holds the tables of REF's checksums.
same_tables() { "$DAB" check "$1" >/dev/null 2>&1 && [ "$(checksums "$1")" = "$2" ]; }

# store_answer DIR [ARGS]: value, move values and best moves of STORE_POS
# solved with DIR as the store.
store_answer() {
  local dir=$1
  shift
  "$DAB" solve "$STORE_POS" --tb "$dir" --threads 1 --hash 32M --json "$@" 2>/dev/null |
    /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["value"], d["moves"], d["best"])'
}

row() {  # kind trials finished nofile refused correct resumed wrong secs rss
  printf '| %s | %d | %d | %d | %d | %d | %d | %d | %s s | %s MB |\n' "$@"
}

echo "| writer | trials | ended before the kill | no file left | file refused | file opens, correct | rerun correct | wrong | clean run | peak RSS |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"

for kind in $KINDS; do
  fin=0 nofile=0 refused=0 correct=0 resumed=0 wrong=0 layers_kept=0
  case $kind in
    build | layered)
      board=$BUILD_BOARD extra=(--full-array)
      [ "$kind" = layered ] && board=$LAYER_BOARD extra=()
      timed "$DAB" build "$board" -o "$T/ref.dab" --threads 1 "${extra[@]}"
      ref=$(checksums "$T/ref.dab")
      span=$(awk -v s="$secs" 'BEGIN { print s * 1.2 }')
      for _ in $(seq "$TRIALS"); do
        rm -rf "$T/k.dab" "$T/k.dab.layers" "$T"/k.dab.* "$T/k.dab-lock"
        kill_at "$(rand_delay "$span")" "$DAB" build "$board" -o "$T/k.dab" --threads 1 "${extra[@]}"
        fin=$((fin + finished))
        [ -d "$T/k.dab.layers" ] && layers_kept=$((layers_kept + 1))
        if [ ! -e "$T/k.dab" ]; then
          nofile=$((nofile + 1))
        elif ! "$DAB" check "$T/k.dab" >/dev/null 2>&1; then
          refused=$((refused + 1))
        elif same_tables "$T/k.dab" "$ref"; then
          correct=$((correct + 1))
        else
          wrong=$((wrong + 1))
          echo "wrong: $kind: a file that passes check with other tables" >&2
        fi
        # The rerun (a layered build resumes from FILE.layers/) must give the
        # clean run's tables.
        "$DAB" build "$board" -o "$T/k.dab" --threads 1 "${extra[@]}" >/dev/null 2>&1
        rerun_tally "$kind: the rerun after a kill did not give the clean file" same_tables "$T/k.dab" "$ref"
      done
      label="dab build $board${extra[*]:+ ${extra[*]}}"
      [ "$kind" = layered ] && notes="${notes}layered: $layers_kept kills left finished layers, which the rerun resumed from
"
      ;;
    store)
      mkdir -p "$T/ref"
      timed "$DAB" solve "$STORE_POS" --tb "$T/ref" --threads 1 --hash 32M --json
      fresh=$(store_answer "$T/ref" --no-store)
      span=$(awk -v s="$secs" 'BEGIN { print s * 1.2 }')
      for _ in $(seq "$TRIALS"); do
        rm -rf "$T/s"
        mkdir -p "$T/s"
        f=$T/s/${STORE_POS%%[@:]*}.dab
        DAB_CHECKPOINT_SECONDS=0.02 kill_at "$(rand_delay "$span")" \
          "$DAB" solve "$STORE_POS" --tb "$T/s" --threads 1 --hash 32M
        fin=$((fin + finished))
        if [ ! -e "$f" ]; then
          nofile=$((nofile + 1))
        elif ! "$DAB" check "$f" >/dev/null 2>&1; then
          refused=$((refused + 1))
        elif "$DAB" verify "$f" --threads 1 >/dev/null 2>&1; then
          correct=$((correct + 1))
        else
          wrong=$((wrong + 1))
          echo "wrong: store: a file that passes check fails verify" >&2
        fi
        got=$(store_answer "$T/s")
        rerun_tally "store: the rerun answered $got" [ "$got" = "$fresh" ]
      done
      label="dab solve $STORE_POS --tb DIR"
      ;;
    *)
      echo "kill_trials.sh: unknown kind '$kind' (build, layered, store)" >&2
      exit 2
      ;;
  esac
  row "$label" "$TRIALS" "$fin" "$nofile" "$refused" "$correct" "$resumed" "$wrong" "$secs" "$rss_mb"
  wrong_total=$((wrong_total + wrong))
done
printf '%s' "$notes"
[ "$wrong_total" = 0 ]
