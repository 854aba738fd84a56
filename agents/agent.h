/*
** agent.h: the shared base of every learning agent: model files, grading
** against the oracle, training-run plumbing, and the table of agent kinds.
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_AGENT_H
#define DAB_AGENT_H

#include <stdio.h>
#include "game/board.h"
#include "game/progress.h"
#include "oracle/oracle.h"
#include "players/arena.h"
#include "players/player.h"
#include "game/rng.h"

/* ======================================================================
** Model files
** ======================================================================
**
** One file per trained agent (or per checkpoint of a training run).  All
** integers are little-endian.
**
**   offset  size  field
**   +------+-----+--------------------------------------------------+
**   |    0 |   8 | magic "DABMODEL"                                 |
**   |    8 |   4 | format version (uint32, DAB_MODEL_VERSION = 1)   |
**   |   12 |   2 | rows (uint16)                                    |
**   |   14 |   2 | cols (uint16)                                    |
**   |   16 |  16 | kind, NUL-padded ASCII ("q", "nn", ...)          |
**   |   32 |   4 | params length P (uint32, <= DAB_MODEL_PARAMS)    |
**   |   36 |   8 | payload length N (uint64)                        |
**   |   44 |   P | params: text "key=value,key=value" (no NUL)      |
**   | 44+P |   N | payload: the kind's own bytes                    |
**   |44+P+N|   8 | XXH3-64 (seed 0) of bytes 0 .. 44+P+N-1          |
**   +------+-----+--------------------------------------------------+
**
** The file ends exactly after the checksum: a shorter or longer file, a
** wrong magic, version, kind or board, or a checksum mismatch is refused.
*/

#define DAB_MODEL_MAGIC "DABMODEL"
#define DAB_MODEL_VERSION 1u
#define DAB_MODEL_KIND_LEN 16      /* the kind, NUL included: at most 15 chars */
#define DAB_MODEL_PARAMS 4096      /* longest params text, bytes */
#define DAB_MODEL_HEADER_BYTES 44  /* fixed part before the params */

typedef struct dab_model_header {
  uint32_t version;                 /* read: as found; write: ignored (current) */
  int rows, cols;                   /* the board the model plays */
  char kind[DAB_MODEL_KIND_LEN];
  char params[DAB_MODEL_PARAMS + 1];  /* NUL-terminated "k=v,k=v" text */
} dab_model_header;

/*
** Writes a model file: header h, then payload[0..n).  Atomic: writes
** PATH.tmp.PID, fsyncs it, renames it over path.
** RETURN: DAB_OK; DAB_EINPUT for a kind that is empty or too long, params
** too long or holding a NUL, a board out of range; DAB_EIO (message names
** the file) when it cannot be written (nothing is left at path then).
*/
dab_status dab_model_write(const char *path, const dab_model_header *h, const void *payload,
                           size_t n, dab_err *err);

/*
** Reads a model file.  want_kind: the kind expected ("q", "nn"), NULL for
** any.  On success *payload is malloc'd (caller frees; non-NULL even when
** n is 0) and *n its length.
** RETURN: DAB_OK; DAB_EINPUT for a missing file, a file that is not a
** model (no magic), another format version or another kind than
** want_kind; DAB_EIO when the file cannot be opened or read otherwise;
** DAB_ECORRUPT for a model truncated, overlong or failing its checksum;
** DAB_ENOMEM.  Every message is one line naming the
** file.  On error *payload is NULL and nothing is loaded.
*/
dab_status dab_model_read(const char *path, const char *want_kind, dab_model_header *h,
                          void **payload, size_t *n, dab_err *err);

/*
** Params text helpers ("key=value,key=value").  dab_params_get copies the
** value of key into buf (size cap) and returns true, or returns false when
** key is absent (or its value does not fit).  dab_params_add appends
** ",key=value" (no comma when params is empty); RETURN: DAB_OK, or
** DAB_EINPUT when the result would pass DAB_MODEL_PARAMS.
*/
bool dab_params_get(const char *params, const char *key, char *buf, size_t cap);
dab_status dab_params_add(dab_model_header *h, const char *key, const char *value, dab_err *err);

/*
** The dab Python package's file name (e.g. "az_train.py") as the running
** program finds it: beside the program, up to three folders up (a
** checkout's python/dab/, or the lib/python3.X/dist-packages/dab/ of
** `make install`), else python/dab/ under the current directory
** (agents/pyfind.c).  RETURN: true and its path in out (relative in the
** last case), or false (out empty) when none is readable.
*/
bool dab_python_package_file(const char *name, char *out, size_t cap);

/* ======================================================================
** Grading against the oracle
** ======================================================================
**
** An agent plays `games` games against `random` and as many against
** `level1` (each colour in half of them, through dab_match_run).  Each of
** the agent's moves is graded against the oracle's exact move values:
**
**   optimal   the move's value equals the position's value;
**   lost      the position's value minus the move's value (>= 0);
**   kept      the move keeps the best win/draw/loss result reachable from
**             the score so far: with d = the mover's boxes minus the
**             opponent's, result(x) = sign(d + x), and the move keeps it
**             when result(move value) == result(position value).
*/

typedef struct dab_grade_opts {
  const dab_geom *g;
  dab_match_player agent;     /* a spec, or make(ctx, g, &player, err) per thread */
  dab_player_env *env;        /* for spec agents and the opponents; may be NULL */
  const dab_oracle *oracle;   /* required: covers g */
  int games;                  /* per opponent; 0 = DAB_GRADE_GAMES; even */
  int threads;                /* 0 = 1 */
  uint64_t seed;
  dab_cancel_flag *cancel;    /* optional */
} dab_grade_opts;

#define DAB_GRADE_GAMES 300

enum { DAB_OPP_RANDOM = 0, DAB_OPP_LEVEL1 = 1, DAB_OPPONENTS = 2 };

typedef struct dab_grade {
  int games[DAB_OPPONENTS];
  double win[DAB_OPPONENTS], draw[DAB_OPPONENTS], loss[DAB_OPPONENTS];  /* shares */
  long moves;                 /* the agent's graded moves, both matches */
  double optimal;             /* share of them that were optimal */
  double kept;                /* share that kept the W/D/L result */
  double lost;                /* mean boxes lost per move */
} dab_grade;

/*
** Grades an agent (see above).  Reproducible from opts->seed whatever the
** thread count, provided the agent draws randomness only from the rng it
** is passed.
** RETURN: DAB_OK and *out; DAB_EINPUT when a player cannot be made or
** games is odd; DAB_EBOARD when the oracle is missing or for another
** board; DAB_ECANCELED; DAB_EINTERNAL when the agent plays an illegal
** line; DAB_ENOMEM.
*/
dab_status dab_agent_grade(const dab_grade_opts *opts, dab_grade *out, dab_err *err);

/* Grades one move: a is the oracle's analysis of the position before it,
** d the mover's score minus the opponent's so far.  Sets *optimal, *kept
** and *lost (a move not in a counts as optimal with 0 lost). */
void dab_grade_move(const dab_analysis *a, int move, int d, bool *optimal, bool *kept, int *lost);

/* ======================================================================
** Training runs
** ======================================================================
**
** `dab train KIND ...` fills a dab_train_ctx and calls the kind's train
** function.  Kind-specific options arrive as "--key=value" words in
** kopts; the kind reads them with dab_kopt_* and must consume every one
** (dab_kopts_check rejects the rest).
**
** The CSV log (--log) has one header line, then one row per snapshot.
** Columns are comma-separated, and the first is always "games" (games or
** episodes played so far; the x axis of `dab plot`).  Names that `dab
** plot` knows (any kind may add others; plot ignores them):
**
**   games, seconds          progress
**   win_random, win_level1  win shares (also win_level0, win_level2, and
**   draw_random, ...        win_best_*, win_mean_* for populations)
**   optimal, kept, lost     dab_grade of the snapshot agent
**   opt_all, kept_all       share over every position (tabular agents)
**   rmse                    RMSE of values against exact values
**
** Plot panels: every "win_*" column in panel 1; "optimal*", "opt_*",
** "kept*" in panel 2 on the left axis, "lost*" and "rmse*" on its right.
*/

#define DAB_KOPTS_MAX 32

typedef struct dab_kopts {
  int n;
  const char *key[DAB_KOPTS_MAX];   /* without the leading "--" */
  const char *val[DAB_KOPTS_MAX];   /* "" when the word had no '=' */
  bool used[DAB_KOPTS_MAX];
} dab_kopts;

/* Each reads kopts' key (marking it used), leaving *out unchanged when it
** is absent.  RETURN: DAB_OK, or DAB_EINPUT naming kind and key when the
** value is not a number in [lo, hi] (or not one of the '|'-separated
** choices, for dab_kopt_choice, which sets *out to the choice's index). */
dab_status dab_kopt_long(dab_kopts *k, const char *kind, const char *key, long lo, long hi,
                         long *out, dab_err *err);
dab_status dab_kopt_double(dab_kopts *k, const char *kind, const char *key, double lo, double hi,
                           double *out, dab_err *err);
dab_status dab_kopt_choice(dab_kopts *k, const char *kind, const char *key, const char *choices,
                           int *out, dab_err *err);
/* RETURN: DAB_OK, or DAB_EINPUT naming the first unused option. */
dab_status dab_kopts_check(const dab_kopts *k, const char *kind, dab_err *err);

typedef struct dab_train_ctx {
  /* Set by the caller (cmd_train.c): */
  const dab_geom *g;
  uint64_t seed;
  int threads;                /* >= 1 */
  long games;                 /* --games N; 0 = the kind's default */
  long generations;           /* --generations N; 0 = the kind's default */
  long snapshot_every;        /* --snapshot N (games or generations); 0 = kind's default */
  int grade_games;            /* per opponent per snapshot; 0 = DAB_GRADE_GAMES */
  const char *out;            /* the model file to write */
  const char *checkpoint;     /* where Ctrl-C writes the training state */
  const char *resume;         /* a checkpoint to continue from, or NULL */
  long stop_at;               /* > 0: after this many games (generations), write
                                 `checkpoint` and return DAB_ECANCELED, as on
                                 Ctrl-C (--stop-at; for tests and schedulers) */
  FILE *log;                  /* CSV log, or NULL */
  dab_player_env *env;        /* oracles and opponents */
  dab_kopts *kopts;
  dab_progress_fn progress;   /* optional */
  void *progress_ctx;
  dab_cancel_flag *cancel;    /* optional; when raised the kind writes
                                 `checkpoint` and returns DAB_ECANCELED */
  /* Kept by the helpers below: */
  double t0;                  /* when the run (or the resumed part) started */
  double t_before;            /* seconds spent before a resume */
  bool header_written;
  double last_progress;
  char columns[512];          /* the header line, to check rows against */
} dab_train_ctx;

/* Starts the clock (call once, at the start of the kind's work; pass the
** seconds a resumed checkpoint had already run, else 0). */
void dab_train_start(dab_train_ctx *t, double seconds_before);

/* Seconds of training so far, resumed part included. */
double dab_train_elapsed(const dab_train_ctx *t);

/*
** Appends one CSV row to t->log (does nothing without a log).  columns is
** the header ("games,seconds,win_random,..."), written before the first
** row; every call of one run must pass the same columns and exactly as
** many values; a NaN value (not measured) is written as an empty field.
** A resumed run appends to an existing log without a second header when
** the file is not empty.
** RETURN: DAB_OK; DAB_EINPUT when columns change or the counts differ;
** DAB_EIO when the write fails.
*/
dab_status dab_train_log(dab_train_ctx *t, const char *columns, const double *values, int n,
                         dab_err *err);

/* Reports progress (what, done of total) through t->progress at most
** every DAB_PROGRESS_INTERVAL seconds (always when done == total). */
void dab_train_progress(dab_train_ctx *t, const char *what, uint64_t done, uint64_t total);

/* True when the caller asked to stop (t->cancel raised). */
static inline bool dab_train_canceled(const dab_train_ctx *t) { return t->cancel && *t->cancel; }

/* Fills the CSV values of a grade, in the order of DAB_GRADE_COLUMNS. */
#define DAB_GRADE_COLUMNS "win_random,draw_random,win_level1,draw_level1,optimal,kept,lost"
#define DAB_GRADE_NCOLUMNS 7
void dab_grade_values(const dab_grade *gr, double *values);

/* ======================================================================
** Agent kinds
** ======================================================================
**
** X(name, summary, options help).  Each kind NAME defines, in its own
** agents/NAME*.c files:
**
**   dab_status dab_agent_train_NAME(dab_train_ctx *t, dab_err *err);
**       trains from t (a resume when t->resume), writes t->out; RETURN:
**       DAB_OK, DAB_ECANCELED after writing t->checkpoint, or an error.
**   dab_status dab_agent_player_NAME(void *ctx, const char *args,
**       const dab_geom *g, dab_player_env *env, dab_player **out,
**       dab_err *err);
**       the player for spec "NAME:args" (a dab_player_kind_fn; ctx unused,
**       args = "FILE[,opt=value...]").
*/
#define DAB_AGENT_KINDS(X)                                                              \
  X(q, "tabular Q-learning by self-play (2x2, 2x3): exact Q from the oracle",          \
    "  --games N = episodes (default 100000); snapshots every N/50\n"                 \
    "  --policy=egreedy|lenient  exploration (default egreedy)\n"                      \
    "  --alpha=A                 learning rate (default 1: the game is deterministic)\n" \
    "  --eps-end=E --decay=D     eps_k = E + (1-E) exp(-D k/N) (0.01, 5; from 1)\n"   \
    "  --t-start=T --t-end=T     Boltzmann temperature schedule (80 -> 0.01)\n"       \
    "  --kappa=K                 leniency (default 2)\n"                               \
    "  --replay=backward|forward order of an episode's updates (default backward)\n" \
    "  --target=OPT              stop once the optimal-move rate over all positions\n" \
    "                            reaches OPT at a snapshot (default: run all games)\n") \
  X(nn, "neural networks of seed paper 002: evolved (GA) or trained (backprop, oracle)",   \
    "  --method=M        direct|roundrobin|ifs|backprop|oracle|oracle-fitness (direct)\n"  \
    "  --opponent=L      level0|level1|level2: direct and oracle-fitness (level0)\n"     \
    "  --mutation=P      per bit (0.005; the paper's level-0 figure used 0.00072)\n"     \
    "  --crossover=P     single point (0.6)   --population=N (100)\n"                   \
    "  --matches=N       two-game matches per member, direct (10)\n"                     \
    "  --share=S         linear scaling: the best's share of the next population (0.1)\n" \
    "  --antigens=A --antibodies=B --points=P   fitness sharing (0.25, 0.33, 33)\n"      \
    "  --eval-games=N    snapshot games per member per opponent (300)\n"                 \
    "  --hidden=N        hidden units (default: one per box)\n"                          \
    "  --runs=N --sets=N --set-games=N   backprop benchmark (30, 10, 800)\n"             \
    "  --rate=R          learning rate (backprop 0.1, oracle 0.02)\n"                    \
    "  --init=genotype|small   initial weights (backprop: genotype; oracle: small)\n"    \
    "  --positions=N --rounds=N   oracle: positions sampled, in rounds (200000, 4)\n"   \
    "  --loss=L          oracle targets: sigmoid (2^-lost per output, default) or\n"    \
    "                    softmax (over legal moves, all on the optimal ones)\n"         \
    "  --hidden2=N       a second hidden layer (backprop, oracle; beyond the paper)\n") \
  X(az, "BoxesZero / AlphaZero (seed paper 001): policy-value net, PUCT, PyTorch trainer", \
    "  --backward        backward training (BoxesZero); default forward (AlphaZero)\n"  \
    "  --no-theorems --no-augment --no-chainloop   the paper's ablations\n"             \
    "  --hours=H         stop after H hours (default: 10 iterations, or --generations)\n" \
    "  --sims=N (48) --c=X (2) --iter-games=N (50) --replay=N (5) --decay=D (0.98)\n"     \
    "  --lr=X (0.001) --batch=N (1024) --epochs=N (5) --l2=X (1e-4) --max-steps=N\n"     \
    "  --min-batches=N   smaller batches where an epoch makes < N steps (32; 0: off)\n" \
    "  --adam=keep|reset Adam's moments run on across passes (keep), or start\n"      \
    "                    fresh each pass (reset)\n"                                     \
    "  --eval-batch=N    self-play games in flight per thread, their positions\n"      \
    "                    evaluated together (8; the same games at any N)\n"          \
    "  --blocks=N (2; the paper: 6) --filters=N (16) --vhidden=N (32)\n"                  \
    "  --vfilters=N      value head channels (1, AlphaZero's)\n"                          \
    "  --mqth --nvth --mqrth --nvrth --mit   advancement (0.85 0.75 0.75 0.85 150)\n"    \
    "  --table=0|1       the paper's per-step-range (noise, mqth) table (1)\n"            \
    "  --filter=F        tree nodes with >= F * root visits as samples, backward (0.25)\n" \
    "  --value=margin|wdl  value target: final margin over the boxes (default) or\n"    \
    "                    the published win/draw/loss\n"                                 \
    "  --noise=E --temp-frac=F --prefix=policy|random\n"                               \
    "  --eval-per-step=N graded positions per step at each snapshot (10; where no\n"   \
    "                    oracle covers the board, 0: the log's oracle columns empty)\n" \
    "  --init=FILE       start from this az model's (or checkpoint's) net: its shape\n" \
    "                    and weights; fresh replay, Adam and counters\n"                \
    "  --trainer=FILE    python/dab/az_train.py (found beside the program by default);\n" \
    "                    DAB_AZ_DEVICE=cuda|auto in the environment trains on a GPU\n") \
  X(econ, "artificial economy of rule-graph agents (seed paper 000): auctions, curriculum", \
    "  --games N (500000) training games; --full-games=N then, unrestricted (0)\n"      \
    "  --colour=second|first|random  the team's colour (second, as published)\n"       \
    "  --pop=N (1000) --reward=R (1) --w-init=W (1) --b-init=B (0.1)\n"                 \
    "  --w-spawn=W (4) --w-child=W (1) --outbid=D (0.01) --p-graph=P (0.1)\n"           \
    "  --window=N (100) --step=S (0.1) --random=P (1)   opponent randomness curriculum\n" \
    "  --prefill=F (0.9)  prefilled share at the start, falling evenly to 0\n"          \
    "  --snap-games=N (400) --grade=0|1 (1: grade every move by the oracle)\n"         \
    "  --pay=win|oracle|both  a won game pays the final owner (published), or the\n"   \
    "                    oracle pays each rule move --oracle-pay=C (0.1) when optimal\n" \
    "                    and charges C per box it lost, or both\n")                     \
  X(erl, "concept-accessibility evolutionary RL on rule graphs (seed paper 003): Q and f", \
    "  --games N (1000000)  --beta=const10|to20|to10|const20 (const20: a control)\n"  \
    "  --control=none|q-only|combined  --alpha=A (0.1) --pop=N (1000)\n"               \
    "  --few=N (2) --p-few=P (0.2)\n"                                                  \
    "  --colour=random|first|second (random)  --eval-games=N (10000, greedy, at the end)\n" \
    "  --snap-games=N (400) --grade=0|1 (1: grade every move by the oracle)\n"        \
    "  --reward=score|oracle|both  Q learns the score (published), the oracle's boxes\n" \
    "                            lost by the rule's moves, or the score less them\n")

#define DAB_AGENT_DECLARE(name, summary, help)                                            \
  dab_status dab_agent_train_##name(dab_train_ctx *t, dab_err *err);                      \
  dab_status dab_agent_player_##name(void *ctx, const char *args, const dab_geom *g,      \
                                     dab_player_env *env, dab_player **out, dab_err *err);
DAB_AGENT_KINDS(DAB_AGENT_DECLARE)
#undef DAB_AGENT_DECLARE

typedef struct dab_agent_kind {
  const char *name, *summary, *help;
  dab_status (*train)(dab_train_ctx *t, dab_err *err);
  dab_player_kind_fn player;
} dab_agent_kind;

/* The kinds, in table order, ending with a {NULL} entry. */
extern const dab_agent_kind dab_agent_kinds[];

/* The kind named name, or NULL. */
const dab_agent_kind *dab_agent_kind_find(const char *name);

/*
** Adds every kind's player ("q:FILE", ...) to env, so that
** dab_player_new understands those specs.
** RETURN: DAB_OK, or the env's error (DAB_ENOMEM: too many kinds).
*/
dab_status dab_agents_register(dab_player_env *env, dab_err *err);

/*
** Makes a player for a loaded model: a dab_player_custom whose ctx the
** player owns (free_ctx(ctx) when the player is freed, also on failure).
** The name is "KIND:FILE".  RETURN: DAB_OK and *out, or DAB_ENOMEM.
*/
dab_status dab_agent_player(const char *name, const dab_geom *g, dab_move_fn fn, void *ctx,
                            void (*free_ctx)(void *), dab_player **out, dab_err *err);

/* Splits player args "FILE[,k=v...]": copies FILE into path (cap bytes)
** and sets *rest to the options after the comma (or ""). RETURN: DAB_OK
** or DAB_EINPUT (no file, or too long). */
dab_status dab_agent_args(const char *kind, const char *args, char *path, size_t cap,
                          const char **rest, dab_err *err);

/* Checks a model's board against g. RETURN: DAB_OK or DAB_EBOARD naming
** the file and both boards. */
dab_status dab_model_check_board(const char *path, const dab_model_header *h, const dab_geom *g,
                                 dab_err *err);

#endif
