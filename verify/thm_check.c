/*
** thm_check.c: the checker's driver, claim rows and report printing.
** See Copyright Notice in README.md
*/
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include "game/clock.h"
#include "verify/thm_check.h"

double thm_now(void) {
  return dab_now_s();
}

void thm_opts_default(thm_opts *o) {
  memset(o, 0, sizeof *o);
  o->level = -1;
  o->max_boxes0 = 30;
  o->max_boxes1 = 24;
  o->max_strings2 = 16;
  o->graphs2 = 200;
  o->max_board_lines = 24;
  o->constructed3 = 200;
  o->games4 = 200;
  o->pdb_strings = 9;
  o->pdb_sums = 1000;
  o->seed = 12345;
}

thm_claim *thm_claim_new(thm_report *rep, const char *id, const char *part, const char *domain,
                         int level, const char *unit, int max_size, int expect) {
  if (rep->n >= THM_MAX_CLAIMS) return &rep->c[THM_MAX_CLAIMS - 1];  /* never: sized for the spec */
  thm_claim *c = &rep->c[rep->n++];
  memset(c, 0, sizeof *c);
  snprintf(c->id, sizeof c->id, "%s", id);
  snprintf(c->part, sizeof c->part, "%s", part ? part : "");
  snprintf(c->domain, sizeof c->domain, "%s", domain ? domain : "");
  c->level = level;
  c->unit = unit;
  c->max_size = max_size;
  c->expect = expect;
  return c;
}

void thm_claim_fail(thm_claim *c, const char *fmt, ...) {
  if (c->nshown < THM_SHOWN) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->shown[c->nshown++], sizeof c->shown[0], fmt, ap);
    va_end(ap);
  }
  c->counterexamples++;
}

/* Marks the rows of the levels that completed final and hands each to the
** caller at once, so that a long run shows its results as it goes. */
static void settle(const thm_opts *o, thm_report *rep) {
  while (rep->nfinal < rep->n) {
    int i = rep->nfinal++;
    if (o->on_claim) o->on_claim(o->claim_ctx, rep, i);
  }
}

dab_status thm_check_run(const thm_opts *o, thm_report *rep, dab_err *err) {
  memset(rep, 0, sizeof *rep);
  double t0 = thm_now();
  dab_status (*const levels[6])(const thm_opts *, thm_report *, dab_err *) = {
      thm_level0, thm_level1, thm_level2, thm_level3, thm_level4, thm_level5};
  /* Levels 4 and 5 report no progress of their own: this line, drawn as
  ** each level starts, says which one runs and what is settled so far. */
  static const char *const running[6] = {
      "level 0 (arithmetic), claims settled",   "level 1 (string game), claims settled",
      "level 2 (Nimstring), claims settled",    "level 3 (boards), claims settled",
      "level 4 (turn identity), claims settled", "level 5 (pattern database), claims settled"};
  dab_status st = DAB_OK;
  for (int l = 0; l < 6 && st == DAB_OK; l++) {
    if (o->level >= 0 && o->level != l) continue;
    if (o->cancel && *o->cancel) {
      st = dab_fail(err, DAB_ECANCELED, "canceled");
    } else {
      if (o->progress) {
        dab_progress pr = {.what = running[l], .done = (uint64_t)rep->nfinal, .total = 0,
                           .elapsed = thm_now() - t0};
        o->progress(o->progress_ctx, &pr);
      }
      st = levels[l](o, rep, err);
    }
    if (st == DAB_OK) {
      settle(o, rep);
    } else {
      /* The non-SLE table of a stopped level 3 covers some boards only:
      ** dropped rather than shown as if complete. */
      if (l == 3) rep->nerr = 0;
      rep->stopped_level = l;
    }
  }
  rep->seconds = thm_now() - t0;
  rep->status = st;
  return st;
}

bool thm_report_ok(const thm_report *rep) {
  for (int i = 0; i < rep->n; i++)
    if (rep->c[i].expect == THM_HOLD && rep->c[i].counterexamples) return false;
  return true;
}

/* Writes s as a JSON string body (quotes and backslashes escaped). */
static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', f);
    if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s);
    else fputc(*s, f);
  }
  fputc('"', f);
}

static const char *verdict(const thm_claim *c) {
  if (c->expect == THM_HOLD) return c->counterexamples ? "FAILED" : "holds";
  if (c->expect == THM_INFO)
    return c->counterexamples ? "fails here (finding, outside the stated domain)" : "holds here too";
  return c->counterexamples ? "expected to fail, failed as expected"
                            : "expected to fail, did NOT fail at this size";
}

void thm_print_begin(FILE *f, bool json) {
  if (json) fprintf(f, "{\"claims\":[");
  else
    fprintf(f, "%-8s %-5s %-34s %-22s %8s %12s %8s %7s  %s\n", "claim", "level", "part", "domain",
            "max", "cases", "counter", "time", "verdict");
}

void thm_print_claim(FILE *f, const thm_report *rep, int i, bool json) {
  const thm_claim *c = &rep->c[i];
  if (json) {
    fprintf(f, "%s{\"id\":", i ? "," : "");
    json_str(f, c->id);
    fprintf(f, ",\"level\":%d,\"max_size\":%d,\"cases\":%llu,\"counterexamples\":%llu,"
               "\"expected\":\"%s\",\"part\":",
            c->level, c->max_size, (unsigned long long)c->cases,
            (unsigned long long)c->counterexamples, c->expect == THM_HOLD ? "hold" : c->expect == THM_FAIL ? "fail" : "info");
    json_str(f, c->part);
    fprintf(f, ",\"domain\":");
    json_str(f, c->domain);
    fprintf(f, ",\"unit\":\"%s\",\"seconds\":%.3f,\"verdict\":\"%s\",\"examples\":[", c->unit,
            c->seconds, verdict(c));
    for (int k = 0; k < c->nshown; k++) {
      if (k) fputc(',', f);
      json_str(f, c->shown[k]);
    }
    fprintf(f, "]}");
    return;
  }
  char size[32];
  snprintf(size, sizeof size, "%d %s", c->max_size,
           !strcmp(c->unit, "boxes") ? "bx" : !strcmp(c->unit, "strings") ? "str" : c->unit);
  fprintf(f, "%-8s %-5d %-34s %-22s %8s %12llu %8llu %6.2fs  %s\n", c->id, c->level,
          c->part[0] ? c->part : "-", c->domain, size, (unsigned long long)c->cases,
          (unsigned long long)c->counterexamples, c->seconds, verdict(c));
  for (int k = 0; k < c->nshown; k++) fprintf(f, "           e.g. %s\n", c->shown[k]);
}

/* True when no final row expected to hold has a counterexample: what a
** stopped run can say about the rows it printed. */
static bool final_rows_ok(const thm_report *rep) {
  for (int i = 0; i < rep->nfinal; i++)
    if (rep->c[i].expect == THM_HOLD && rep->c[i].counterexamples) return false;
  return true;
}

void thm_print_end(FILE *f, const thm_report *rep, bool json) {
  if (json) {
    fprintf(f, "],\"nonsle\":[");
    for (int i = 0; i < rep->nerr; i++) {
      const thm_errrow *e = &rep->err[i];
      fprintf(f, "%s{\"board\":\"%s\",\"junctions\":%d,\"positions\":%llu,\"exact\":%llu,"
                 "\"same_winner\":%llu,\"mean_abs_err\":%.4f,\"max_abs_err\":%d}",
              i ? "," : "", e->board, e->junctions, (unsigned long long)e->positions,
              (unsigned long long)e->exact, (unsigned long long)e->same_winner,
              e->positions ? (double)e->abs_err_sum / (double)e->positions : 0.0, e->max_err);
    }
    fprintf(f, "],\"seconds\":%.2f,\"interrupted\":%s", rep->seconds,
            rep->status == DAB_ECANCELED ? "true" : "false");
    /* "ok" promises that everything asked for was checked: never after a stop. */
    if (rep->status) fprintf(f, ",\"stopped_level\":%d,\"ok\":false}\n", rep->stopped_level);
    else fprintf(f, ",\"ok\":%s}\n", thm_report_ok(rep) ? "true" : "false");
    return;
  }
  if (rep->nerr) {
    fprintf(f, "\nnon-SLE loony endgames (no capturable box, no safe move, a junction)\n"
               "treated as the SLE of their runs, each junction box joined to its longest\n"
               "run; error = |exact - predicted| board value:\n");
    fprintf(f, "%-6s %-9s %12s %9s %12s %9s %8s\n", "board", "junctions", "positions", "exact",
            "same winner", "mean err", "max err");
    for (int i = 0; i < rep->nerr; i++) {
      const thm_errrow *e = &rep->err[i];
      fprintf(f, "%-6s %-9s %12llu %8.1f%% %11.1f%% %9.3f %8d\n", e->board,
              e->junctions >= 3 ? ">=3" : e->junctions == 2 ? "2" : e->junctions == 1 ? "1" : "0",
              (unsigned long long)e->positions,
              e->positions ? 100.0 * (double)e->exact / (double)e->positions : 0.0,
              e->positions ? 100.0 * (double)e->same_winner / (double)e->positions : 0.0,
              e->positions ? (double)e->abs_err_sum / (double)e->positions : 0.0, e->max_err);
    }
  }
  if (rep->status) {
    fprintf(f, "\n%s in level %d after %.1f s: %d claim%s settled above%s, the rest not checked\n",
            rep->status == DAB_ECANCELED ? "interrupted" : "stopped by an error", rep->stopped_level,
            rep->seconds, rep->nfinal, rep->nfinal == 1 ? "" : "s",
            !rep->nfinal ? "" : final_rows_ok(rep) ? " (every one expected to hold holds)"
                                                   : " (SOME CLAIM EXPECTED TO HOLD FAILED)");
    return;
  }
  fprintf(f, "\n%s (%.1f s)\n",
          thm_report_ok(rep) ? "every claim expected to hold holds"
                             : "SOME CLAIM EXPECTED TO HOLD FAILED",
          rep->seconds);
}

void thm_report_print(FILE *f, const thm_report *rep, bool json) {
  /* A report filled by hand (nfinal 0, status DAB_OK) prints every row. */
  int n = rep->status ? rep->nfinal : rep->n;
  thm_print_begin(f, json);
  for (int i = 0; i < n; i++) thm_print_claim(f, rep, i, json);
  thm_print_end(f, rep, json);
}
