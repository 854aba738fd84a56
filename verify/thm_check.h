/*
** thm_check.h: the endgame-theorem checker: every claim of the spec,
** tested exhaustively against theory-free exact solvers, levels 0-5.
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_THM_CHECK_H
#define DAB_THM_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "game/err.h"
#include "game/progress.h"

/*
** Levels (docs/theorems.md has the details):
**   0  arithmetic: every SLE up to max_boxes0, claims against the recursion
**   1  theory-free: the component solver (cuts strings only) on every
**      extended SLE up to max_boxes1
**   2  Nimstring: the general graph solver (junctions) up to max_strings2
**   3  real boards: exhaustive retrograde tables (boards with at most
**      max_board_lines lines) and constructed 4x4/5x5 SLE positions solved
**      by the graph solver; the non-SLE error table
**   4  turn identity on completed games (optimal and random play)
**
** Each claim is a row: spec id, an optional part, the domain, cases,
** counterexamples (first few shown) and whether it is expected to hold or,
** for negative controls, to fail.
*/

/* Expected outcome of a claim row.  THM_INFO rows are findings outside the
** claim's stated domain (e.g. odd loops, which never occur on boards):
** reported, never counted as a failure of the checker. */
enum { THM_HOLD = 0, THM_FAIL = 1, THM_INFO = 2 };

#define THM_SHOWN 3
#define THM_MAX_CLAIMS 64
#define THM_MAX_ERRROWS 24

typedef struct thm_claim {
  char id[16];          /* spec claim id: BC, V, AL, B1..B4, BZ3, BZ5, N, ... */
  char part[64];        /* sub-claim, or "" */
  char domain[48];      /* what was enumerated */
  int level;
  int max_size;         /* largest size reached, in `unit` */
  const char *unit;     /* "boxes", "strings", "lines", "games" */
  uint64_t cases, counterexamples;
  int expect;           /* THM_HOLD, THM_FAIL or THM_INFO */
  double seconds;
  int nshown;
  char shown[THM_SHOWN][200];
} thm_claim;

/* One row of the non-SLE error table (level 3): positions of a board with
** no capturable box that are not SLEs, grouped by junction count. */
typedef struct thm_errrow {
  char board[8];
  int junctions;        /* junction coins (degree >= 3); 3 means >= 3 */
  uint64_t positions, exact;
  uint64_t same_winner;  /* sign(exact) == sign(predicted) */
  uint64_t abs_err_sum;
  int max_err;
} thm_errrow;

typedef struct thm_report {
  int n;
  thm_claim c[THM_MAX_CLAIMS];
  int nerr;             /* non-SLE rows: filled only by a level 3 that completed */
  thm_errrow err[THM_MAX_ERRROWS];
  double seconds;       /* the whole run, or until it stopped */
  int nfinal;           /* rows c[0..nfinal) are final; the rest of a stopped
                           run are the partial counts of the level it stopped */
  dab_status status;    /* what thm_check_run returned: DAB_OK, or why it stopped ... */
  int stopped_level;    /* ... in level stopped_level (DAB_ECANCELED: interrupted) */
} thm_report;

/* Called by thm_check_run for row rep->c[i] once that row is final. */
typedef void (*thm_claim_fn)(void *ctx, const thm_report *rep, int i);

typedef struct thm_opts {
  int level;            /* -1 = every level */
  int max_boxes0;       /* level 0 (default 30; the full run uses 46) */
  int max_boxes0_ext;   /* level 0, SLEs with 1-/2-chains (default min(max_boxes0, 26)) */
  int max_boxes1;       /* level 1 (default 24; full 30+) */
  int max_boxes1_l3;    /* level 1 3-loop control (default min(max_boxes1, 16)) */
  int max_strings2;     /* level 2 (default 16) */
  int graphs2;          /* level 2 random graphs (default 200) */
  int max_board_lines;  /* level 3 retrograde boards up to this many lines (default 24: 3x3) */
  int constructed3;     /* level 3 constructed 4x4/5x5 positions (default 200) */
  int games4;           /* level 4 games per board and kind (default 200) */
  int pdb_strings;      /* level 5: pattern database components up to this size (default 9) */
  int pdb_sums;         /* level 5: random sums of its components (default 1000) */
  int threads;          /* retrograde threads (0 = all cores) */
  uint64_t seed;
  dab_progress_fn progress;
  void *progress_ctx;
  dab_cancel_flag *cancel;
  thm_claim_fn on_claim; /* NULL: none; see thm_check_run */
  void *claim_ctx;
} thm_opts;

/* Fills o with the defaults above. */
void thm_opts_default(thm_opts *o);

/*
** Runs the selected levels into rep (caller-owned, ~40 KiB).
** PARAMETERS: o->on_claim, when set, is called with o->claim_ctx once for
**   every row of rep->c as soon as the row is final, rows in ascending
**   order (rep->nfinal is then i + 1), so a caller can print each result
**   while later levels run.  A level's rows become final together when the
**   level ends.  o->cancel, when it becomes non-zero, stops the run inside
**   the level under way, or before the next level starts.
** RETURN: DAB_OK (claims may still have failed: see thm_report_ok), with
**   rep->nfinal == rep->n; DAB_ENOMEM, DAB_ECANCELED, or the retrograde
**   solver's error.  Whatever the status, rep->c[0..rep->nfinal) hold final
**   results (the levels that completed), rep->status is the status
**   returned and, when not DAB_OK, rep->stopped_level the level stopped.
** NOTES: single-threaded except the retrograde builds, which finish before
**   any on_claim call: on_claim runs on the calling thread, never
**   concurrently with o->progress.  The checker keeps no state between
**   calls; concurrent runs need their own opts, report and callbacks.
*/
dab_status thm_check_run(const thm_opts *o, thm_report *rep, dab_err *err);

/* True when every expected-to-hold claim (final or not) has 0
** counterexamples. */
bool thm_report_ok(const thm_report *rep);

/*
** Prints rep: a table for humans, or the JSON form
** {"claims":[{"id","level","max_size","cases","counterexamples","expected",...}],
**  "nonsle":[...],"seconds","interrupted":bool[,"stopped_level"],"ok":bool}.
** Only the final rows are printed; a stopped run ends with a line that says
** where it stopped (JSON: "stopped_level", "ok":false, and "interrupted":true
** when the cancel flag stopped it).
** thm_report_print is thm_print_begin, thm_print_claim for each final row,
** then thm_print_end: a caller that prints rows from on_claim calls the three
** in that order and gets the same output.
*/
void thm_report_print(FILE *f, const thm_report *rep, bool json);
void thm_print_begin(FILE *f, bool json);
void thm_print_claim(FILE *f, const thm_report *rep, int i, bool json);
void thm_print_end(FILE *f, const thm_report *rep, bool json);

/* ---- Internal: shared by the level files ---------------------------- */

thm_claim *thm_claim_new(thm_report *rep, const char *id, const char *part, const char *domain,
                         int level, const char *unit, int max_size, int expect);
void thm_claim_fail(thm_claim *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define THM_CASE(cl, ok, ...)                   \
  do {                                          \
    (cl)->cases++;                              \
    if (!(ok)) thm_claim_fail((cl), __VA_ARGS__); \
  } while (0)
double thm_now(void);

dab_status thm_level0(const thm_opts *o, thm_report *rep, dab_err *err);
dab_status thm_level1(const thm_opts *o, thm_report *rep, dab_err *err);
dab_status thm_level2(const thm_opts *o, thm_report *rep, dab_err *err);
dab_status thm_level3(const thm_opts *o, thm_report *rep, dab_err *err);
dab_status thm_level4(const thm_opts *o, thm_report *rep, dab_err *err);
dab_status thm_level5(const thm_opts *o, thm_report *rep, dab_err *err); /* thm_pdb.c */

#endif
