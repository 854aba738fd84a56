# rule_arena.sh: what the rule-team bench scripts (erl_paper.sh,
# econ_paper.sh) share; sourced, it defines
#   rule_pin_dab ROOT OUTDIR
# which makes OUTDIR and, the first time, copies ROOT/bin/dab into it and
# writes OUTDIR/COMMIT (the commit, and whether the tree had local
# changes), so every run of a table trains with the same code; and
#   rule_arena DAB PLAYER OUT
# which plays PLAYER (e.g. erl:FILE) against level1, level2 and chain,
# `dab arena --board 3x3 --games 2000 --seed 5` (colours alternate), under
# nice, and writes OUT one line per opponent: NAME WIN_RATE OPTIMAL_RATE
# BOXES_LOST_PER_MOVE SCORED_MOVES GAMES.  OUT appears only when whole.

rule_pin_dab() {
  mkdir -p "$2" || return 1
  [ -x "$2/dab" ] && return 0
  cp "$1/bin/dab" "$2/dab" || return 1
  (cd "$1" && git rev-parse --short HEAD && { git status --short | grep -q . && echo "(with local changes)" || true; }) \
    >"$2/COMMIT"
}

# p1's FIELD in an arena --json line
rule_arena_field() { sed 's/.*"p1":{//; s/"p2":.*//' | sed "s/.*\"$1\":\([-0-9.]*\).*/\1/"; }

rule_arena() {
  for o in level1 level2 chain; do
    j=$(nice -n 5 "$1" arena --board 3x3 --p1 "$2" --p2 $o --games 2000 --seed 5 --json) || return 1
    games=$(echo "$j" | sed 's/.*"games":\([0-9]*\).*/\1/')
    echo "$o $(echo "$j" | rule_arena_field win_rate) $(echo "$j" | rule_arena_field optimal_rate)" \
      "$(echo "$j" | rule_arena_field boxes_lost_per_move) $(echo "$j" | rule_arena_field scored_moves) $games"
  done >"$3.tmp" && mv "$3.tmp" "$3"
}
