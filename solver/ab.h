/*
** ab.h: exact alpha-beta solver for boards of up to 64 lines (the fast
** path): negamax with a shared transposition table, exact pruning rules,
** a null-window root driver and lazy-SMP threads.
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_AB_H
#define DAB_AB_H

#include <stdbool.h>
#include <stdint.h>
#include "game/board.h"
#include "game/progress.h"
#include "game/analysis.h"
#include "solver/tt.h"
#include "symmetry/sym.h"
#include "pdb/pdb.h"

/*
** Values follow Wilson's convention (analysis.h): the net boxes the player
** to move gains from position p on.  With n boxes still open:
**     -n <= value <= n   and   value == n (mod 2)
** The search and the root driver use both facts.
**
** Exact pruning rules (each switchable, each checked against the
** retrograde tables in tests/test_ab.c):
**  safe_capture  A capturable box whose capturing line puts no third side
**                on another box is taken at once (the only move tried).
**  decline_rule  Otherwise (every capture hands over the neighbour o of
**                the box taken, o having exactly two sides), the moves
**                tried are every capture plus ONE decline: o's other
**                undrawn line, for the first capturable box.  Any other
**                non-capture is dominated by capturing first and then
**                playing it.  (The retrograde uses the same rule.)
**  border_equiv  Canonical keys treat the undrawn edge lines of a box
**                as interchangeable, and only one of them is tried.
**  loony_bound   In a quiet position, a move inside an isolated chain of
**                k >= 3 coins is worth at most -(k-2) (a loop: -(k-4)),
**                because the opponent may take all or all but two (four);
**                it is skipped when that cannot beat alpha.
**  chain_moves   In a quiet position, only one opening of each isolated
**                loop is tried (they are all alike), and of each isolated
**                chain of >= 3 coins only an end string: after any other
**                opening the opponent still has take-all and
**                all-but-two, so it is worth no more to the opener.
**  junction_chains  loony_bound and chain_moves also for a chain of
**                k >= 3 two-sided coins with an end at a junction (a
**                coin with three or more strings).  Opened at either end,
**                the opponent's best is take-all or all-but-two, worth
**                max(k + v(R), k - 4 - v(R)) with R the rest once the
**                chain and both end strings are gone (an earlier decline
**                is worse); opened inside, the opponent still has both
**                (capture one side first; the two coins left can sit at
**                either end).  So one end string is tried, worth at
**                most -(k-2).  The proof: docs/solver.md.
**  hard_handouts With chain_moves, an isolated 2-chain is opened only
**                in the middle: opened at an end, the opponent may take
**                both coins (all the middle opening allows) or decline
**                them, so the end opening is never better.
**  sle           A quiet position that is a simple loony endgame is
**                valued by the endgame formula (theorems/sle.h) instead
**                of searched.
**  graph_keys    Table keys are canonical Strings-and-Coins graphs
**                (symmetry/sckey.h) for positions with at least
**                graph_min_free free lines: positions with isomorphic
**                graphs share an entry even when no board symmetry maps
**                one to the other (3.6x fewer nodes on 3x5).  Below the
**                threshold the cheaper board-symmetry keys are used.
**  etc           Enhanced transposition cutoffs: children are probed
**                before any is searched, and children with equal keys
**                are searched once.  On by default from etc_min_free
**                free lines, for the children whose keys are cached
**                (etc_cached_only), and for every child from
**                etc_full_min_free (docs/solver.md).
**
** Thread safety: a dab_ab object is used by one caller thread at a time;
** it runs its own worker threads inside dab_ab_solve, dab_ab_analyze and
** dab_ab_analyze_moves (whose hooks it calls from those threads).
*/

/*
** The search's rules and tuning knobs: dab_ab_default_opts sets every
** exact rule the tests have proved on; the other settings exist to
** measure each rule's worth (bench/ab_bench, docs/solver.md).
*/
typedef struct dab_ab_tuning {
  dab_tt_policy tt_policy;      /* replacement policy (DAB_TT_WORK) */
  bool no_tt;                   /* search without a table (tests only) */
  bool safe_capture;
  bool decline_rule;
  bool border_equiv;
  bool sle;
  bool order_sacrifices_last;   /* non-sacrifices before sacrifices */
  bool parity;                  /* step null-window tests by 2 (value parity) */
  bool root_window;             /* a root test whose guess lies strictly inside the
                                   known bounds searches the window (guess-2, guess+2):
                                   one search proves "= guess" (docs/solver.md) */
  bool loony_bound;             /* skip chain/loop openings that cannot reach alpha */
  bool chain_moves;             /* one opening per isolated chain (>= 3) / loop */
  bool hard_handouts;           /* ... and only the middle string of a 2-chain */
  bool junction_chains;         /* ... and chains ending at a junction (>= 3) too */
  bool etc;                     /* enhanced transposition cutoffs (probe children) */
  int etc_min_free;             /* ... at nodes with at least this many free lines */
  bool etc_cached_only;         /* ... probing only children whose key is cached */
  int etc_full_min_free;        /* ... except at this many free lines or more (0: never) */
  bool graph_keys;              /* Strings-and-Coins graph keys (symmetry/sckey.h) */
  int graph_min_free;           /* ... for positions with at least this many free lines */
  bool abdada;                  /* threads defer big nodes another thread is expanding */
  bool smp_rotate;              /* helper threads rotate their move order near the root */
  int smp_min_free;             /* a test of a position with fewer free lines runs on one
                                   thread: it ends before a second would start (0: never) */
  int keycache_bits;            /* log2 entries of the graph-key cache (24 bytes each, at most 2^30);
                                   0 = by the table: 1/16 to 1/8 of its bytes, 2^21..2^26 */
  int tt_min_free;              /* no table below this many free lines (0: always; measured
                                   no clear gain, docs/solver.md) */
  int dfpn_min_free;            /* a one-thread null-window test of a position with at least
                                   this many free lines runs df-pn (solver/ab_dfpn.c; 0: never) */
  int dfpn_leaf_free;           /* ... whose nodes with fewer free lines are alpha-beta tests */
  int dfpn_bits;                /* ... log2 entries of its proof-number table (0: 22) */
  bool dfpn_mobility;           /* ... a new node's disproof number its free lines (else 1) */
  int dfpn_eps_pct;             /* ... the 1 + epsilon threshold trick, epsilon in percent */
} dab_ab_tuning;

typedef struct dab_ab_opts {
  uint64_t hash_bytes;          /* transposition table size; 0 = 1 GiB */
  int threads;                  /* lazy-SMP threads; 0 or 1 = one */
  uint64_t mem_limit;           /* refuse plans above this; 0 = MemAvailable */
  uint64_t node_limit;          /* stop (DAB_ECANCELED) after this many; 0 = none */
  dab_progress_fn progress;     /* optional; `what` carries the current bounds */
  void *progress_ctx;
  dab_cancel_flag *cancel;      /* optional */
  /* Called each time the root driver proves a new bound (optional). */
  void (*on_bound)(void *ctx, int lower, int upper);
  void *bound_ctx;
  /* Called at every position the search expands past its capture rules
  ** (a general node, before the table is read), from the search threads
  ** (optional: profiles such as bench/pdb_profile; a branch per node). */
  void (*on_node)(void *ctx, uint64_t p);
  void *node_ctx;
  /* The pattern database (pdb/pdb.h; NULL: none, the default): a
  ** position past the capture rules whose every component it holds, with
  ** at most pdb_max_free free lines, is searched on component ids
  ** (dab_pdb_search, exact) instead of on the board.  The caller keeps
  ** it alive while the solver lives; pdb_table_bits sizes that search's
  ** table (0: 2^22 entries, 64 MiB). */
  const dab_pdb *pdb;
  int pdb_max_free;             /* 0 = every position */
  int pdb_min_free;             /* ... with at least this many free lines */
  int pdb_table_bits;
  dab_ab_tuning tune;           /* rules and knobs (dab_ab_default_opts) */
} dab_ab_opts;

/* The recommended settings: every exact rule that tests have proved on. */
void dab_ab_default_opts(dab_ab_opts *o);

/* Search counters, summed over threads. */
typedef struct dab_ab_stats {
  uint64_t nodes;               /* positions visited */
  uint64_t tt_probes, tt_hits, tt_cuts;
  uint64_t sle_leaves;          /* positions valued by the SLE formula */
  uint64_t loony_skips;         /* moves skipped by the loony bound */
  uint64_t deferrals;           /* moves put off because another thread was on them */
  uint64_t etc_cuts, etc_dups;  /* ETC: nodes cut by a child's entry; children dropped as repeats */
  uint64_t graph_keys;          /* graph keys computed (the rest came from the key cache) */
  uint64_t pdb_leaves;          /* positions handed to the pattern database's search */
  uint64_t pdb_nodes;           /* ... and the positions it visited (counted in nodes too) */
  uint64_t tests;               /* null-window root searches */
  double seconds;
} dab_ab_stats;

typedef struct dab_ab dab_ab;

/* Bytes a solver with options o allocates: the table (rounded down to
** whole 64-byte buckets) plus the graph-key cache the threads share, plus
** the pattern-database search's table when o->pdb is set. */
uint64_t dab_ab_memory(const dab_ab_opts *o);

/*
** Creates a solver for board g (copied), allocating the table.
** RETURN: the solver, or NULL with a message in err: DAB_EBOARD code if g
** has more than 64 lines; DAB_ENOMEM when dab_ab_memory exceeds
** opts->mem_limit (default: MemAvailable; the message says both) or an
** allocation fails (*st gets the code when st is non-NULL).
*/
dab_ab *dab_ab_new(const dab_geom *g, const dab_ab_opts *opts, dab_status *st, dab_err *err);
void dab_ab_free(dab_ab *ab);

/* The solver's geometry and options (read-only). */
const dab_geom *dab_ab_geom(const dab_ab *ab);
const dab_ab_opts *dab_ab_options(const dab_ab *ab);
const dab_tt *dab_ab_tt(const dab_ab *ab);

/*
** The table's bounds for position p, under whichever key the search gives
** p (a graph key at graph_min_free free lines or more, else the symmetric
** key).
** RETURN: true with *hit filled when the table holds p; false otherwise
** (also with no_tt, and for positions with a capturable box, which the
** search never stores).
** NOTES: safe while a search runs (a torn entry reads as a miss).
*/
bool dab_ab_probe(const dab_ab *ab, uint64_t p, dab_tt_hit *hit);

/*
** Proves the exact value of p.
** PARAMETERS: p drawn lines; *value receives the value.  lower/upper (may
** be NULL) receive the proved bounds so far, also on cancellation.
** RETURN: DAB_OK; DAB_ECANCELED (cancel flag or node limit: the bounds
** stay valid); DAB_EINPUT if p has lines outside the board.
*/
dab_status dab_ab_solve(dab_ab *ab, uint64_t p, int *value, int *lower, int *upper, dab_err *err);

/*
** Null-window test: true if value(p) >= bound.  RETURN as dab_ab_solve;
** *result gets the answer.
*/
dab_status dab_ab_test(dab_ab *ab, uint64_t p, int bound, bool *result, dab_err *err);

/*
** The same test, fail-soft: *failsoft >= bound proves value(p) >= *failsoft,
** *failsoft < bound proves value(p) <= *failsoft (so one test may decide
** more than the bound asked).  RETURN as dab_ab_solve.
*/
dab_status dab_ab_test_failsoft(dab_ab *ab, uint64_t p, int bound, int *failsoft, dab_err *err);

/*
** Value of p and of every legal move (a->move in increasing order):
** dab_ab_solve, then dab_ab_analyze_moves (below).
** RETURN: as dab_ab_solve.  On cancellation *a is unspecified.
*/
dab_status dab_ab_analyze(dab_ab *ab, uint64_t p, dab_analysis *a, dab_err *err);

/*
** Hooks of dab_ab_analyze_moves (each optional).
**   known:  the exact value of child c when something else knows it (a
**           store of solved positions); true and *value to skip its search.
**           Called from the calling thread, before any search.
**   solved: child c was proved to be worth `value` (for its mover) after
**           `nodes` nodes and `seconds` of wall time.  Called from the
**           analysis threads, one call at a time (under a lock).
*/
typedef struct dab_ab_move_hooks {
  bool (*known)(void *ctx, uint64_t c, int *value);
  void (*solved)(void *ctx, uint64_t c, int value, uint64_t nodes, double seconds);
  void *ctx;
} dab_ab_move_hooks;

/*
** Every move's value of p, whose value is already known to be `value`
** (from dab_ab_solve).  Moves whose children are alike (same capture
** count, same table key: a board symmetry or a graph isomorphism) are
** solved once.  With threads > 1 the moves are spread over the threads,
** one single-threaded search each, sharing the table: independent proofs
** split better than one proof does.
** PARAMETERS: hooks may be NULL.
** RETURN: as dab_ab_solve (the first failing move's status and message;
** the other moves stop).  On failure *a is unspecified; moves already
** proved have been reported to hooks->solved.
*/
dab_status dab_ab_analyze_moves(dab_ab *ab, uint64_t p, int value, const dab_ab_move_hooks *hooks,
                                dab_analysis *a, dab_err *err);

/*
** A principal variation from p (value v, as solved): up to max moves of
** optimal play, each verified by search with the warm table.
** RETURN: number of moves written to pv.
*/
int dab_ab_pv(dab_ab *ab, uint64_t p, int16_t *pv, int max);

/* Counters since dab_ab_new (or the last dab_ab_reset_stats). */
void dab_ab_get_stats(const dab_ab *ab, dab_ab_stats *s);
void dab_ab_reset_stats(dab_ab *ab);

/* Open boxes of p (boxes not yet complete). */
int dab_ab_open_boxes(const dab_geom *g, uint64_t p);

/*
** Seeds the transposition table with proved bounds of p (e.g. from the
** tablebase's solved store): lower <= value(p) <= upper.  They must be
** TRUE bounds; they merge with what the table holds (intersection).
** work weighs them for the replacement policy as the table weighs its own
** entries: 1 + floor(log2(nodes behind them)), at most 63.
** DAB_AB_SEED_KEEP keeps them over anything a search stores: right for a
** few precious results (a root, its moves), wrong for a table's worth of
** checkpoint entries, which would crowd the search out of its table.
** RETURN: DAB_OK; DAB_EINPUT if p has lines outside the board or the
** bounds (clamped to -n..n for n open boxes) are empty.
** NOTES: the search reads the table only at quiet positions (no box with
** exactly three sides) and at the root of dab_ab_solve, so seeding other
** positions is harmless but does nothing.  Not thread-safe against a
** running solve of the same solver.
*/
#define DAB_AB_SEED_KEEP 60
dab_status dab_ab_seed(dab_ab *ab, uint64_t p, int lower, int upper, int work, dab_err *err);

/*
** Stores proved bounds under a raw table key (key, check) as read from
** this solver's table by a checkpoint (dab_tt_read): the way graph-keyed
** entries, which name no position, are carried into a later search.
** work as in dab_ab_seed (normally the work the checkpoint read).
** RETURN: DAB_OK, or DAB_EINPUT when lower > upper or work is not 0..63
** (nothing stored).
*/
dab_status dab_ab_seed_key(dab_ab *ab, uint64_t key, uint32_t check, int lower, int upper, int work);

#endif
