/*
** commands.h: the table of dab subcommands.  Each lives in cli/cmd_NAME.c
** as `int dab_cmd_NAME(int argc, char **argv)` (argv[0] is the name) and
** returns the process exit code: 0 ok, 1 failure, 2 bad input.
** See Copyright Notice in README.md
*/
#ifndef DAB_COMMANDS_H
#define DAB_COMMANDS_H

/* X(name, one-line summary) -- keep in the order `dab --help` lists them. */
#define DAB_COMMANDS(X)                                                        \
  X(solve, "value of a position, of every move, and the best moves")           \
  X(show, "draw a position as ASCII")                                          \
  X(retro, "exhaustive retrograde over every position below POS")              \
  X(demo, "the quick tour: build and probe the 3x3 tablebase, play a game")    \
  X(theorems, "endgame theorems: check them exhaustively, value an SLE, explain") \
  X(build, "solve a board and write its tablebase file")                       \
  X(probe, "values of positions from a tablebase (one, or a stream on stdin)") \
  X(info, "what a tablebase file holds (its meta)")                            \
  X(check, "integrity check of a tablebase: every block's checksum")           \
  X(verify, "re-derive every stored value of a tablebase from its successors") \
  X(cache, "what the cache holds (tables, search results): list it, clear it") \
  X(pdb, "the pattern database of Strings-and-Coins components: build, info, probe, check, verify") \
  X(arena, "play matches between players, scored against the oracle")         \
  X(play, "the move a player (perfect, chain, mcts, sw...) makes in POS")      \
  X(train, "train a learning agent (q, ...) graded by the oracle; a model file") \
  X(dataset, "exact-labelled positions of self-play as numpy shards, for learners") \
  X(plot, "learning curves of a training log (CSV) as a PNG, with gnuplot")     \
  X(rules, "rule-graph teams (econ, erl): each rule with its numbers, graded by the oracle") \
  X(matrix, "matrix games: exact Nash equilibria, Q-learners, replicator plots") \
  X(serve, "the oracle and players over HTTP/JSON, and the web analysis board")

#define DAB_DECLARE(name, summary) int dab_cmd_##name(int argc, char **argv);
DAB_COMMANDS(DAB_DECLARE)
#undef DAB_DECLARE

#endif
