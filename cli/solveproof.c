/*
** solveproof.c: `dab solve POS --proof DIR`: runs, resumes and verifies a
** divisible proof (solver/proof.h) recorded in DIR.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli/cliutil.h"
#include "game/clock.h"
#include "proof/prover.h"
#include "service/mpi_proof.h"
#include "cli/solveproof.h"
#include "solver/proof.h"

static const char usage[] =
    "usage: dab solve POS --proof DIR [--claim C] [--depth D] [--budget SECONDS]\n"
    "                 [--leaf-limit SECONDS] [--direct SECONDS] [--part I/N]\n"
    "                 [--records N] [--warm [--warm-every SECONDS] [--warm-entries N]]\n"
    "                 [--threads N] [--hash SIZE] [--rate-window SECONDS] [--tb DIR]\n"
    "                 [--no-store] [--json]\n"
    "       mpirun -np N dab solve POS --proof DIR --mpi [run options]\n"
    "       dab solve POS --proof DIR --verify [--recheck K [--recheck-nodes N]] [--seed S]\n"
    "                 [--threads N] [--hash SIZE] [--tb DIR] [--no-store] [--json]\n"
    "       dab solve POS --proof DIR --list [--json]\n\n"
    "A divisible proof of a claim about POS (docs/proofs.md): the claim is split\n"
    "into an AND/OR tree of subproblems D plies deep, each solved by one\n"
    "null-window search and recorded as one line in DIR/rec-*.txt.  A run\n"
    "skips what DIR already proves and solves open subproblems until the proof\n"
    "is complete or the budget is spent; rerun it to continue.\n"
    "  --claim C          =V, >=B, <=B or >=B,<=B (needed when DIR is new)\n"
    "  --depth D          split depth in plies (new DIR; default 2)\n"
    "  --budget SECONDS   stop after this much wall time (the running\n"
    "                     subproblem is abandoned; default: no limit)\n"
    "  --leaf-limit SECS  abandon a leaf search after this long, note it in the\n"
    "                     records, and split that leaf further: its children\n"
    "                     (two plies for >=, one for <=) become subproblems\n"
    "  --direct SECONDS   before the leaves of an open node two plies above the\n"
    "                     split depth, try that node as one search for this long\n"
    "                     (one record then replaces its whole subtree)\n"
    "  --rate-window SECS the measured rate (summary) covers the last SECS of\n"
    "                     CPU time recorded (default 4h)\n"
    "  --records N        stop after N records (rerun to continue)\n"
    "  --warm             the table outlives the run: seeded from the board's\n"
    "                     solved store (--tb, $DAB_TB_PATH or the cache) before\n"
    "                     the first search, and a checkpoint of its deepest\n"
    "                     entries (up to ~60 MB) written there every\n"
    "                     --warm-every SECONDS (default 600) and at the end;\n"
    "                     --warm-entries N: the entries kept (default 1000000)\n"
    "  --part I/N         only subproblems whose subtree hashes to part I of N\n"
    "                     (0 <= I < N): split one proof over N machines\n"
    "  --mpi              one run over the ranks of an MPI job (make MPI=1): rank 0\n"
    "                     hands open subproblems to the others and alone writes\n"
    "                     DIR; --threads and --hash are per rank\n"
    "  --threads N        search threads (default 1)\n"
    "  --hash SIZE        transposition table, e.g. 512M, 4G (default 2G)\n"
    "  --verify           check the claim from the records alone (exit 0 when\n"
    "                     they prove it, 1 otherwise, naming what is missing)\n"
    "  --recheck K        with --verify: re-solve K random records\n"
    "  --seed S           random seed of --recheck (default: the time)\n"
    "  --recheck-nodes N  with --recheck: skip (and count) a record whose re-check\n"
    "                     needs more than N nodes, instead of waiting for it\n"
    "  --list             print the open subproblems and stop\n"
    "  --tb DIR           where the board's tablebase file is (as for dab solve)\n"
    "  --no-store         a finished proof is not written to that file (by default\n"
    "                     its value and every record's bound go to the solved store)\n"
    "  --json             machine-readable summary on stdout\n"
    "Ctrl-C abandons the running subproblem cleanly; everything proved stays.\n";

typedef struct proof_cfg {
  const char *pos, *dir, *claim, *part_text, *tb_dir;
  long depth, threads, recheck, seed;
  uint64_t recheck_nodes; /* 0: no limit */
  double budget, leaf_limit, direct, rate_window, warm_every;
  uint64_t hash;
  long records; /* --records: stop after this many (0: no limit) */
  long warm_entries; /* --warm-entries (0: the store's default) */
  bool verify, list, json, no_store, mpi, warm;
  int part_i, part_n;
} proof_cfg;

static double parse_seconds(const char *s) {
  if (!s) return -1;
  char *end;
  double v = strtod(s, &end);
  if (end == s || v <= 0) return -1;
  if (*end == 'm') v *= 60, end++;
  else if (*end == 'h') v *= 3600, end++;
  else if (*end == 's') end++;
  return *end ? -1 : v;
}

/* ---- --recheck: the state its progress callback sees ------------------ */

typedef struct run_ctx {
  volatile sig_atomic_t cancel;  /* the solver's cancel flag */
  dab_cancel_flag *sigflag;
  bool tty;
  uint64_t done, total;          /* records re-solved, and to re-solve */
  const char *leaf;
  char label[DAB_MAX_LINES + 64];/* the record being re-solved */
  const struct proof_cfg *cfg;
  const dab_proof *pf;
} run_ctx;

static void on_progress(void *vctx, const dab_progress *p) {
  run_ctx *c = vctx;
  if (!c->cancel && *c->sigflag) c->cancel = 1;
  if (!c->tty) return;
  fprintf(stderr, "\rre-check: %llu/%llu  %s  %.0f s %.3g M nodes/s   ", (unsigned long long)c->done,
          (unsigned long long)c->total, c->leaf, p->elapsed,
          p->elapsed > 0 ? (double)p->done / p->elapsed / 1e6 : 0.0);
}

static void clear_line(const run_ctx *c) {
  if (c->tty) fprintf(stderr, "\r\033[K");
}

/* ---- Helpers ----------------------------------------------------------- */

static const char *state_name(int s) {
  return s == DAB_PROOF_PROVED ? "proved" : s == DAB_PROOF_REFUTED ? "refuted" : "open";
}

static void print_summary(const proof_cfg *cfg, dab_proof *pf, const dab_proof_summary *s,
                          const dab_proof_load_info *li, int solved, int abandoned, double run_seconds,
                          const char *extra_json) {
  const dab_proof_spec *sp = dab_proof_get_spec(pf);
  char claim[24], sub[1024] = "";
  dab_proof_spec_claim_text(sp, claim);
  double eta = (double)s->leaves_open * s->median_seconds;
  size_t nsub = 0;
  dab_prover_subtrees sbt;
  dab_prover_rate rate;
  bool has_rate = false;
  if (s->state == DAB_PROOF_OPEN) {
    dab_prover_subtrees_estimate(pf, &nsub, &sbt);
    has_rate = dab_prover_rate_estimate(pf, cfg->dir, cfg->rate_window, s, &rate);
  }
  char rate_json[320] = "", rate_eta[32] = "null";
  if (has_rate && rate.closed > 0) snprintf(rate_eta, sizeof rate_eta, "%.3f", rate.eta_cpu);
  if (has_rate && cfg->json)
    snprintf(rate_json, sizeof rate_json,
             ",\"rate_since\":\"%s\",\"rate_window_cpu_seconds\":%.3f,\"rate_leaves_closed\":%lld,"
             "\"rate_eta_cpu_seconds\":%s",
             rate.since, rate.window_cpu, rate.closed, rate_eta);
  /* the ETA by the mean: subtree costs are heavy-tailed (docs/proofs.md),
  ** so the median alone under-estimates badly */
  if (nsub && cfg->json)
    snprintf(sub, sizeof sub,
             ",\"subtrees_open\":%zu,\"subtree_median_seconds\":%.3f,\"subtree_mean_seconds\":%.3f,"
             "\"subtree_median_cpu_seconds\":%.3f,\"subtree_mean_cpu_seconds\":%.3f,"
             "\"subtree_eta_cpu_seconds\":%.3f,\"subtree_eta_median_cpu_seconds\":%.3f,"
             "\"subtrees_open_ge\":%zu,\"subtrees_open_le\":%zu,\"subtree_attempts_ge\":%zu,"
             "\"subtree_attempts_le\":%zu,\"subtree_given_up_ge\":%zu,\"subtree_given_up_le\":%zu,"
             "\"subtree_attempt_mean_cpu_seconds_ge\":%.3f,\"subtree_attempt_mean_cpu_seconds_le\":%.3f",
             nsub, sbt.median, sbt.mean, sbt.cpu_median, sbt.cpu_mean, sbt.eta_cpu, (double)nsub * sbt.cpu_median,
             sbt.open[0], sbt.open[1], sbt.attempts[0], sbt.attempts[1], sbt.given_up[0], sbt.given_up[1],
             sbt.attempt_cpu_mean[0], sbt.attempt_cpu_mean[1]);
  if (cfg->json) {
    printf("{\"rows\":%d,\"cols\":%d,", sp->rows, sp->cols);
    if (s->state == DAB_PROOF_PROVED && sp->has_ge && sp->has_le && sp->ge_bound == sp->le_bound)
      printf("\"value\":%d,", sp->ge_bound);
    printf("\"proof\":\"%s\",\"claim\":\"%s\",\"depth\":%d,\"state\":\"%s\",\"records\":%llu,\"used\":%llu,"
           "\"open\":%llu,\"refuted\":%llu,\"seconds\":%.3f,\"cpu_seconds\":%.3f,\"given_up_cpu_seconds\":%.3f,"
           "\"median_seconds\":%.3f,\"eta_cpu_seconds\":%.1f%s%s,\"torn\":%d,\"bad\":%d,\"run\":{\"solved\":%d,\"abandoned\":%d,\"seconds\":%.3f}%s%s}\n",
           cfg->dir, claim, sp->depth, state_name(s->state), (unsigned long long)s->records,
           (unsigned long long)s->used_proved, (unsigned long long)s->leaves_open, (unsigned long long)s->refuted,
           s->seconds, s->cpu_seconds, s->given_up_cpu_seconds, s->median_seconds, eta, sub, rate_json, li->torn, li->bad, solved, abandoned, run_seconds,
           extra_json && *extra_json ? "," : "", extra_json ? extra_json : "");
    return;
  }
  printf("proof of value %s for %s, depth %d (%s): %s\n", claim, cfg->pos, sp->depth, cfg->dir,
         state_name(s->state));
  printf("  subproblems: %llu proved records in use, %llu open; %llu records held (%llu refuted)\n",
         (unsigned long long)s->used_proved, (unsigned long long)s->leaves_open, (unsigned long long)s->records,
         (unsigned long long)s->refuted);
  if (solved || abandoned || run_seconds > 0)
    printf("  this run: %d solved, %d abandoned, %.1f s\n", solved, abandoned, run_seconds);
  printf("  time so far: %.1f s wall, %.2f CPU-hours in records (+ %.2f in searches given up); median %.1f s per"
         " subproblem\n",
         s->seconds, s->cpu_seconds / 3600, s->given_up_cpu_seconds / 3600, s->median_seconds);
  /* the measured rate first: the other two leave out the searches given up
  ** and the leaves that follow them, so on a proof whose easy part is done
  ** they are floors (docs/proofs.md) */
  if (has_rate) {
    char since[40];
    snprintf(since, sizeof since, strcmp(rate.since, "0") ? "since %s" : "from the start", rate.since);
    if (rate.closed > 0)
      printf("  estimated remaining, at the measured rate: %.1f CPU-hours (the last %.2f CPU-hours, %s,\n"
             "    given-up searches included, closed %lld open leaves net)\n",
             rate.eta_cpu / 3600, rate.window_cpu / 3600, since, rate.closed);
    else
      printf("  measured rate: the last %.2f CPU-hours (%s) closed no open leaves net\n", rate.window_cpu / 3600,
             since);
  }
  if (s->state == DAB_PROOF_OPEN)
    printf("  %s: %llu x the median record %.1f s = %.2f h\n", has_rate ? "floor" : "estimated remaining",
           (unsigned long long)s->leaves_open, s->median_seconds, eta / 3600);
  if (nsub)
    printf("  %s by subtrees (--direct): %zu open nodes at depth %d (%zu >=, %zu <=) x the mean CPU time of an\n"
           "    attempt of their kind (>= %.1f s over %zu, %zu given up; <= %.1f s over %zu, %zu given up)"
           " = %.2f CPU-hours\n"
           "    (x the median subtree record, %.1f CPU-s: %.2f)\n",
           has_rate ? "floor" : "estimate", nsub, sp->depth - 2, sbt.open[0], sbt.open[1], sbt.attempt_cpu_mean[0],
           sbt.attempts[0], sbt.given_up[0], sbt.attempt_cpu_mean[1], sbt.attempts[1], sbt.given_up[1],
           sbt.eta_cpu / 3600, sbt.cpu_median, (double)nsub * sbt.cpu_median / 3600);
}

static void report_load(const dab_proof_load_info *li, const char *dir) {
  if (li->torn || li->bad)
    fprintf(stderr, "dab solve: %s: %d torn and %d bad record lines ignored (first: %s)\n", dir, li->torn, li->bad,
            li->first_problem);
}

/* Opens or creates DIR's proof for POS (dab_prover_open).  RETURN: exit
** code (0 = ok). */
static int open_proof(const proof_cfg *cfg, const dab_parsed *p, bool create, dab_proof **out,
                      dab_proof_load_info *li) {
  dab_err err;
  dab_proof_spec want;
  memset(&want, 0, sizeof want);
  want.rows = p->geom.rows;
  want.cols = p->geom.cols;
  want.root = dab_ls_word(&p->game.lines);
  if (cfg->claim && dab_proof_parse_claim(cfg->claim, &want, &err)) return cli_error("solve", DAB_EINPUT, err.msg);
  dab_proof_spec have;
  bool exists = true;
  if (create && !cfg->claim && !dab_proof_read_spec(cfg->dir, &have, &exists, &err) && !exists) {
    fprintf(stderr, "dab solve: %s is a new proof: say what to prove with --claim (e.g. --claim =0)\n", cfg->dir);
    return CLI_USAGE;
  }
  dab_status st = dab_prover_open(cfg->dir, &want, cfg->claim != NULL, (int)cfg->depth, create, out, li, &err);
  if (st) return cli_error("solve", st, err.msg);
  report_load(li, cfg->dir);
  return CLI_OK;
}

static dab_ab *new_solver(const proof_cfg *cfg, const dab_proof *pf, run_ctx *rc, dab_err *err, dab_status *st) {
  dab_ab_opts o;
  dab_ab_default_opts(&o);
  o.hash_bytes = cfg->hash;
  o.threads = (int)cfg->threads;
  o.cancel = &rc->cancel;
  if (cfg->verify) o.node_limit = cfg->recheck_nodes; /* per re-check: each one resets the counters */
  o.progress = on_progress;
  o.progress_ctx = rc;
  if (!cfg->json) cli_announce_memory("solve", "the search (table and key caches)", dab_ab_memory(&o));
  return dab_ab_new(dab_proof_geom(pf), &o, st, err);
}

/* ---- Storing a finished proof ------------------------------------------ */

static void print_warning(void *ctx, const char *msg) {
  (void)ctx;
  fprintf(stderr, "warning: %s\n", msg);
}

/* dab_prover_store (proof/prover.h), unless --no-store; prints what was
** stored unless --json. */
static void store_proved(const proof_cfg *cfg, const dab_proof *pf, const dab_proof_summary *s) {
  if (cfg->no_store) return;
  char path[4096];
  long w = dab_prover_store(pf, s, cfg->tb_dir, print_warning, NULL, path, sizeof path);
  if (!cfg->json && w >= 0)
    printf("stored: the proved bounds of the root and of %ld records in %s\n", w, path);
}

/* ---- --verify ---------------------------------------------------------- */

/* --recheck: the progress line names the record being re-solved. */
static void on_recheck(void *vctx, size_t i, size_t k, const char *label) {
  run_ctx *c = vctx;
  clear_line(c);
  snprintf(c->label, sizeof c->label, "%s", label);
  c->leaf = c->label;
  c->done = i, c->total = k;
}

static void on_bad_record(void *vctx, const dab_proof_rec *r, const char *label) {
  run_ctx *c = vctx;
  const char *src = dab_proof_source_name(c->pf, r->source);
  clear_line(c);
  fprintf(stderr, "dab solve: BAD RECORD %s/%s:%d: %s recorded %s, re-check says %s\n", c->cfg->dir,
          src ? src : "?", r->line, label, r->proved ? "proved" : "refuted", r->proved ? "refuted" : "proved");
}

static int do_verify(const proof_cfg *cfg, dab_proof *pf, const dab_proof_load_info *li) {
  dab_err err;
  dab_proof_summary s;
  enum { SHOW = 10 };
  dab_proof_claim open[SHOW];
  size_t nopen;
  dab_status st = dab_proof_eval(pf, &s, open, SHOW, &nopen, &err);
  if (st) return cli_error("solve", st, err.msg);
  int rc = s.state == DAB_PROOF_PROVED ? CLI_OK : CLI_FAIL;
  char extra[2048] = "";
  int checked = 0, wrong = 0, skipped = 0;
  if (cfg->recheck > 0) {
    run_ctx ctx = {.sigflag = cli_cancel_on_signal(), .tty = !cfg->json && isatty(STDERR_FILENO), .leaf = "",
                   .cfg = cfg, .pf = pf};
    dab_ab *ab = new_solver(cfg, pf, &ctx, &err, &st);
    if (!ab) return cli_error("solve", st, err.msg);
    dab_prover_recheck_result res;
    st = dab_prover_recheck(pf, ab, (size_t)cfg->recheck, (uint64_t)cfg->seed, ctx.sigflag, on_recheck,
                            on_bad_record, &ctx, &res, &err);
    clear_line(&ctx);
    dab_ab_free(ab);
    if (st) return cli_error("solve", st, err.msg);
    checked = res.checked, wrong = res.wrong, skipped = res.skipped;
    if (res.interrupted) {
      fprintf(stderr, "dab solve: re-check interrupted after %d records\n", checked);
      rc = CLI_FAIL;
    }
    if (wrong) rc = CLI_FAIL;
  }
  if (cfg->recheck > 0)
    snprintf(extra, sizeof extra, "\"rechecked\":%d,\"recheck_wrong\":%d,\"recheck_skipped\":%d", checked, wrong,
             skipped);
  if (cfg->json) {
    print_summary(cfg, pf, &s, li, 0, 0, 0, extra);
  } else {
    char claim[24];
    dab_proof_spec_claim_text(dab_proof_get_spec(pf), claim);
    if (s.state == DAB_PROOF_PROVED)
      printf("verified: the records prove value(%s) %s (%llu records used)\n", cfg->pos, claim,
             (unsigned long long)s.used_proved);
    else if (s.state == DAB_PROOF_REFUTED)
      printf("NOT verified: the records REFUTE value(%s) %s\n", cfg->pos, claim);
    else {
      printf("NOT verified: %llu subproblems still open, e.g.:\n", (unsigned long long)s.leaves_open);
      for (size_t i = 0; i < nopen; i++) {
        char label[DAB_MAX_LINES + 64];
        dab_proof_claim_label(pf, &open[i], label, sizeof label);
        printf("  %s\n", label);
      }
    }
    if (cfg->recheck > 0) printf("re-checked %d records: %d wrong\n", checked, wrong);
    if (skipped) printf("skipped %d records that needed more than %llu nodes\n", skipped,
                        (unsigned long long)cfg->recheck_nodes);
  }
  if (rc == CLI_OK) store_proved(cfg, pf, &s);
  return rc;
}

/* ---- --list ------------------------------------------------------------ */

static int do_list(const proof_cfg *cfg, dab_proof *pf) {
  dab_err err;
  dab_proof_summary s;
  dab_proof_claim *open = NULL;
  size_t nopen;
  dab_status st = dab_proof_eval(pf, &s, NULL, 0, &nopen, &err);
  if (!st) {
    open = malloc((s.leaves_open ? s.leaves_open : 1) * sizeof *open);
    if (!open) return cli_error("solve", DAB_ENOMEM, "out of memory");
    st = dab_proof_eval(pf, &s, open, s.leaves_open, &nopen, &err);
  }
  if (st) {
    free(open);
    return cli_error("solve", st, err.msg);
  }
  if (cfg->json) printf("{\"state\":\"%s\",\"open\":[", state_name(s.state));
  int k = 0;
  for (size_t i = 0; i < nopen; i++) {
    if (!dab_prover_in_part(&open[i], cfg->part_i, cfg->part_n)) continue;
    char label[DAB_MAX_LINES + 64], pos[DAB_MAX_LINES + 32], cl[8];
    if (cfg->json) {
      dab_lineset ls = dab_ls_from_word(open[i].pos);
      dab_format_dbn(dab_proof_geom(pf), &ls, pos, sizeof pos);
      printf("%s{\"position\":\"%s\",\"claim\":\"%s\"}", k ? "," : "", pos,
             dab_proof_claim_text(open[i].dir, open[i].bound, cl));
    } else {
      dab_proof_claim_label(pf, &open[i], label, sizeof label);
      printf("%s\n", label);
    }
    k++;
  }
  if (cfg->json) printf("]}\n");
  free(open);
  return CLI_OK;
}

/* ---- The run ----------------------------------------------------------- */

/* ---- A run ------------------------------------------------------------ */

typedef struct run_view {
  const proof_cfg *cfg;
  bool tty;
  double leaf_cpu; /* CPU seconds per open leaf at the measured rate (0: none) */
} run_view;

/* The progress line of the running search (stderr, a terminal only). */
static void on_run_progress(void *ctx, const dab_prover_status *st) {
  const run_view *v = ctx;
  if (!v->tty) return;
  uint64_t left = st->total > st->done ? st->total - st->done : 0;
  long th = v->cfg->threads;
  /* wall time: at the measured rate when there is one (print_summary),
  ** else open leaves x the median record */
  double eta = v->leaf_cpu > 0 ? (double)left * v->leaf_cpu / (double)(th > 1 ? th : 1)
                               : (double)left * st->median;
  fprintf(stderr, "\rproof: %llu/%llu  %s  %.0f s %.3g M nodes/s  median %.0f s  ETA %.1f h%s   ",
          (unsigned long long)st->done, (unsigned long long)st->total, st->label, st->elapsed,
          st->elapsed > 0 ? (double)st->nodes / st->elapsed / 1e6 : 0.0, st->median, eta / 3600,
          v->leaf_cpu > 0 ? " (measured rate)" : "");
}

/* One line on stdout per record, given-up search and skip. */
static void on_run_event(void *ctx, const dab_prover_event *e) {
  const run_view *v = ctx;
  if (v->tty) fprintf(stderr, "\r\033[K");
  const char *kind = e->task->direct ? "direct " : "";
  if (e->kind == DAB_PROVER_EV_STOPPED) {
    if (!v->cfg->json)
      fprintf(stderr, "dab solve: %s: %s%s abandoned after %.1f s (nothing recorded for it)\n",
              e->outcome == DAB_PROVER_CANCELED ? "interrupted" : "budget spent", kind, e->task->label, e->seconds);
    return;
  }
  if (v->cfg->json) return;
  if (e->kind == DAB_PROVER_EV_SKIP)
    printf("skipping direct %s: an earlier run gave up after %.1f s\n", e->task->label, e->seconds);
  else if (e->kind == DAB_PROVER_EV_GAVE_UP)
    printf("abandoned %s%s after %.1f s (%llu nodes, %s)\n", kind, e->task->label, e->seconds,
           (unsigned long long)e->nodes, *kind ? "--direct: its leaves next" : "--leaf-limit: splitting it");
  else
    printf("%s%s %s in %.1f s, %llu nodes\n", kind, e->task->label, e->rec->proved ? "proved" : "REFUTED",
           e->rec->seconds, (unsigned long long)e->rec->nodes);
  fflush(stdout);
}

static void announce_search(void *ctx, uint64_t bytes) {
  (void)ctx;
  cli_announce_memory("solve", "the search (table and key caches)", bytes);
}

static int do_run(const proof_cfg *cfg, dab_proof *pf, const dab_proof_load_info *li) {
  dab_err err;
  run_view view = {cfg, !cfg->json && isatty(STDERR_FILENO), 0};
  dab_proof_summary s;
  if (view.tty && !dab_proof_eval(pf, &s, NULL, 0, NULL, &err) && s.state == DAB_PROOF_OPEN) {
    dab_prover_rate rate;
    if (dab_prover_rate_estimate(pf, cfg->dir, cfg->rate_window, &s, &rate) && rate.closed > 0)
      view.leaf_cpu = rate.window_cpu / (double)rate.closed;
  }
  dab_prover_opts po = {.budget = cfg->budget > 0 ? cfg->budget : 0,
                        .leaf_limit = cfg->leaf_limit > 0 ? cfg->leaf_limit : 0,
                        .direct = cfg->direct > 0 ? cfg->direct : 0,
                        .part_i = cfg->part_i, .part_n = cfg->part_n,
                        .cancel = cli_cancel_on_signal(),
                        .progress = on_run_progress, .progress_ctx = &view,
                        .event = on_run_event, .event_ctx = &view,
                        .max_records = cfg->records, .warm = cfg->warm, .warm_tb_dir = cfg->tb_dir,
                        .warm_every = cfg->warm_every, .warm_entries = (uint64_t)cfg->warm_entries};
  dab_prover *pr = NULL;
  dab_prover_result r = {0};
  double t0 = dab_now_s();
  dab_status st = dab_prover_new(pf, &po, cfg->dir, NULL, &pr, &err);
  if (st && cfg->mpi) dab_mpi_prove_lead(NULL, NULL, NULL, &r, NULL); /* the other ranks stop */
  if (!st) {
    dab_ab_opts o;
    dab_ab_default_opts(&o);
    o.hash_bytes = cfg->hash;
    o.threads = (int)cfg->threads;
    if (cfg->mpi) /* the other ranks search; rank 0 too when it is alone */
      st = dab_mpi_prove_lead(pf, pr, &o, &r, &err);
    else st = dab_prover_run_here(pr, &o, cfg->json ? NULL : announce_search, NULL, &r, &err);
  }
  dab_prover_free(pr);
  int rc = st ? cli_error("solve", st, err.msg) : r.stopped == DAB_PROVER_CANCELED ? CLI_FAIL : CLI_OK;
  if (rc == CLI_OK || rc == CLI_FAIL) {
    dab_proof_summary fin;
    if (!dab_proof_eval(pf, &fin, NULL, 0, NULL, &err)) {
      print_summary(cfg, pf, &fin, li, r.solved, r.gave_up, dab_now_s() - t0, NULL);
      if (fin.state == DAB_PROOF_REFUTED && !cfg->json) printf("the records REFUTE the claim\n");
      store_proved(cfg, pf, &fin);
    }
  }
  return rc;
}

int dab_solve_proof(int argc, char **argv) {
  if (cli_help_requested(argc, argv, usage)) return CLI_OK;
  proof_cfg cfg = {.depth = -1, .threads = 1, .hash = 2ull << 30, .seed = (long)time(NULL),
                   .rate_window = DAB_PROVER_RATE_WINDOW};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--json")) cfg.json = true;
    else if (!strcmp(a, "--verify")) cfg.verify = true;
    else if (!strcmp(a, "--list")) cfg.list = true;
    else if (!strcmp(a, "--proof")) cfg.dir = v, i++;
    else if (!strcmp(a, "--claim")) cfg.claim = v, i++;
    else if (!strcmp(a, "--part")) cfg.part_text = v, i++;
    else if (!strcmp(a, "--no-store")) cfg.no_store = true;
    else if (!strcmp(a, "--mpi")) cfg.mpi = true;
    else if (!strcmp(a, "--warm")) cfg.warm = true;
    else if (!strcmp(a, "--records") || !strcmp(a, "--warm-entries")) {
      long n = cli_parse_count("solve", a, v, 1000000000L);
      if (n < 0) return CLI_USAGE;
      if (a[2] == 'r') cfg.records = n;
      else cfg.warm_entries = n;
      i++;
    }
    else if (!strcmp(a, "--tb")) {
      if (cli_check_tb_dir("solve", v)) return CLI_USAGE;
      cfg.tb_dir = v, i++;
    } else if (!strcmp(a, "--depth")) {
      char *end;
      cfg.depth = v ? strtol(v, &end, 10) : -1;
      if (!v || *end || cfg.depth < 0 || cfg.depth > DAB_PROOF_MAX_DEPTH) {
        fprintf(stderr, "dab solve: --depth needs a whole number from 0 to %d, got '%s'\n", DAB_PROOF_MAX_DEPTH,
                v ? v : "");
        return CLI_USAGE;
      }
      i++;
    } else if (!strcmp(a, "--threads") || !strcmp(a, "--recheck")) {
      long n = cli_parse_count("solve", a, v, !strcmp(a, "--threads") ? 64 : 1000000000L);
      if (n < 0) return CLI_USAGE;
      if (a[2] == 't') cfg.threads = n;
      else cfg.recheck = n;
      i++;
    } else if (!strcmp(a, "--recheck-nodes")) {
      long n = cli_parse_count("solve", a, v, 4000000000000000000L);
      if (n < 0) return CLI_USAGE;
      cfg.recheck_nodes = (uint64_t)n;
      i++;
    } else if (!strcmp(a, "--seed")) {
      char *end;
      cfg.seed = v ? strtol(v, &end, 10) : 0;
      if (!v || *end) {
        fprintf(stderr, "dab solve: --seed needs a whole number, got '%s'\n", v ? v : "");
        return CLI_USAGE;
      }
      i++;
    } else if (!strcmp(a, "--budget") || !strcmp(a, "--leaf-limit") || !strcmp(a, "--direct") ||
               !strcmp(a, "--rate-window") || !strcmp(a, "--warm-every")) {
      double s = parse_seconds(v);
      if (s <= 0) {
        fprintf(stderr, "dab solve: %s needs seconds (or 30m, 2h), got '%s'\n", a, v ? v : "");
        return CLI_USAGE;
      }
      if (a[2] == 'b') cfg.budget = s;
      else if (a[2] == 'd') cfg.direct = s;
      else if (a[2] == 'r') cfg.rate_window = s;
      else if (a[2] == 'w') cfg.warm_every = s;
      else cfg.leaf_limit = s;
      i++;
    } else if (!strcmp(a, "--hash")) {
      cfg.hash = cli_parse_size(v);
      if (!cfg.hash) {
        fprintf(stderr, "dab solve: --hash needs a size such as 512M or 4G, got '%s'\n", v ? v : "");
        return CLI_USAGE;
      }
      i++;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "dab solve: option '%s' does not go with --proof (dab solve --proof DIR --help)\n", a);
      return CLI_USAGE;
    } else if (cfg.pos) {
      fprintf(stderr, "dab solve: one position expected, got a second: '%s'\n", a);
      return CLI_USAGE;
    } else cfg.pos = a;
  }
  if (!cfg.dir || !*cfg.dir) {
    fprintf(stderr, "dab solve: --proof needs a directory\n");
    return CLI_USAGE;
  }
  if (!cfg.pos) {
    fputs(usage, stderr);
    return CLI_USAGE;
  }
  if (cfg.recheck_nodes && !cfg.recheck) {
    fprintf(stderr, "dab solve: --recheck-nodes goes with --verify --recheck K\n");
    return CLI_USAGE;
  }
  if (cfg.recheck && !cfg.verify) {
    fprintf(stderr, "dab solve: --recheck goes with --verify\n");
    return CLI_USAGE;
  }
  if (cfg.part_text) {
    int i, n, used = 0;
    if (sscanf(cfg.part_text, "%d/%d%n", &i, &n, &used) != 2 || cfg.part_text[used] || n < 1 || i < 0 || i >= n) {
      fprintf(stderr, "dab solve: --part needs I/N with 0 <= I < N, got '%s'\n", cfg.part_text);
      return CLI_USAGE;
    }
    cfg.part_i = i, cfg.part_n = n;
  }
  static dab_parsed p;
  int rc = cli_parse_position("solve", cfg.pos, &p);
  if (rc) return rc;
  if (!dab_geom_fast(&p.geom)) {
    fprintf(stderr, "dab solve: proofs need a board of at most 64 lines (%dx%d has %d)\n", p.geom.rows, p.geom.cols,
            p.geom.nlines);
    return CLI_USAGE;
  }
  if (cfg.mpi && (cfg.verify || cfg.list || cfg.part_text)) {
    fprintf(stderr, "dab solve: --mpi runs a proof; it takes no --verify, --list or --part\n");
    return CLI_USAGE;
  }
  if (cfg.mpi) {
    int rank, nranks;
    dab_err err;
    dab_status st = dab_mpi_join(&rank, &nranks, &err);
    if (st) return cli_error("solve", st, err.msg);
    if (rank > 0) { /* a worker: rank 0 prints and writes */
      dab_ab_opts o;
      dab_ab_default_opts(&o);
      o.hash_bytes = cfg.hash;
      o.threads = (int)cfg.threads;
      dab_prover_opts po = {.budget = cfg.budget > 0 ? cfg.budget : 0, .cancel = cli_cancel_on_signal()};
      st = dab_mpi_prove_work(&o, &po, &err);
      dab_mpi_leave();
      if (st) fprintf(stderr, "dab solve: rank %d: %s\n", rank, err.msg);
      return st ? CLI_FAIL : CLI_OK;
    }
  }
  dab_proof *pf = NULL;
  dab_proof_load_info li;
  rc = open_proof(&cfg, &p, !cfg.verify && !cfg.list, &pf, &li);
  if (rc) {
    if (cfg.mpi) {
      dab_prover_result none;
      dab_mpi_prove_lead(NULL, NULL, NULL, &none, NULL); /* the other ranks stop */
      dab_mpi_leave();
    }
    return rc;
  }
  if (cfg.verify) rc = do_verify(&cfg, pf, &li);
  else if (cfg.list) rc = do_list(&cfg, pf);
  else rc = do_run(&cfg, pf, &li);
  if (cfg.mpi) dab_mpi_leave();
  dab_proof_free(pf);
  return rc;
}
