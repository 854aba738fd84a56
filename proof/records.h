/*
** records.h: a divisible proof's files (docs/proofs.md): record lines,
** the directory's spec and records files, and the search that makes a record.
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_PROOF_RECORDS_H
#define DAB_PROOF_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "solver/ab.h"
#include "solver/proof.h"

/* The tree and its records in memory are solver/proof.h's; this layer
** reads and writes them.  Thread safety: as solver/proof.h; the file
** functions are safe between processes: records go to per-run files,
** whole files are written by temporary file and rename (game/durable.h). */

/* ---- Record lines ------------------------------------------------------ */

/* The record as one line (no newline).  RETURN: buf, or NULL if too small
** (needs nlines + 200 bytes). */
char *dab_proof_format_rec(const dab_proof *pf, const dab_proof_rec *r, char *buf, size_t len);

/*
** Parses one record line (as dab_proof_format_rec writes it; key=value
** fields in any order, unknown keys ignored).
** RETURN: DAB_OK, or DAB_EINPUT with a message saying what is wrong (other
** board, bad position, claim, result, or a BOUND that is not implied by
** claim and result nor stronger in the same direction, or outside the
** box count).
*/
dab_status dab_proof_parse_rec(const dab_proof *pf, const char *line, dab_proof_rec *r, dab_err *err);

/* The time now as records date it, ISO 8601 UTC ("2026-11-22T05:40:01Z";
** buf >= 21 bytes).  RETURN: buf. */
char *dab_proof_utc_now(char *buf, size_t len);

/*
** Searches one claim with ab (a solver for the same board) by one
** null-window test (dab_ab_test_failsoft): GE b is value >= b, LE b is
** NOT value >= b+1.
** PARAMETERS: out receives the record with its fail-soft bound (date and
** host filled in; threads from ab's options).
** RETURN: as dab_ab_test (DAB_ECANCELED: abandoned, *out untouched).
** NOTES: resets ab's statistics counters.
*/
dab_status dab_proof_solve_claim(dab_proof *pf, dab_ab *ab, const dab_proof_claim *c, dab_proof_rec *out,
                                 dab_err *err);

/* ---- Directories -------------------------------------------------------
**
**   DIR/README.md      one line: what the directory is
**   DIR/proof.txt      the spec: board, root, claim, depth (written once)
**   DIR/rec-*.txt      records, one file per run (see docs/proofs.md)
*/

/*
** Reads DIR/proof.txt into spec.
** RETURN: DAB_OK (*exists true); DAB_OK with *exists false when DIR or
** the file does not exist; DAB_ECORRUPT for a malformed file; DAB_EIO.
*/
dab_status dab_proof_read_spec(const char *dir, dab_proof_spec *spec, bool *exists, dab_err *err);

/*
** Creates DIR (and its parent chain) if needed and writes README.md and
** proof.txt (atomically).  RETURN: DAB_OK or DAB_EIO.
*/
dab_status dab_proof_write_spec(const char *dir, const dab_proof_spec *spec, dab_err *err);

/* The spec in the text form proof.txt uses for the claim ("=+0",
** ">=+0", "<=+2", ">=-1,<=+3").  RETURN: buf (>= 24 bytes). */
char *dab_proof_spec_claim_text(const dab_proof_spec *spec, char *buf);

/* Parses a claim text as written by dab_proof_spec_claim_text into spec.
** RETURN: DAB_OK or DAB_EINPUT. */
dab_status dab_proof_parse_claim(const char *text, dab_proof_spec *spec, dab_err *err);

/* What loading a directory met. */
typedef struct dab_proof_load_info {
  int files;                    /* rec-*.txt files read */
  uint64_t lines;               /* record lines accepted */
  int torn;                     /* unterminated last lines ignored */
  int bad;                      /* malformed or contradicting lines ignored */
  char first_problem[320];      /* "FILE:LINE: what" for the first torn/bad line */
  uint64_t later;               /* record and note lines skipped as dated after
                                   dab_proof_set_until's date */
} dab_proof_load_info;

/*
** Adds the records of every DIR/rec-*.txt (sorted by name).  A last line
** without its newline (a torn write) and malformed lines are skipped and
** counted in info; they never stop the load.
** RETURN: DAB_OK, or DAB_EIO when DIR cannot be read.
*/
dab_status dab_proof_load_dir(dab_proof *pf, const char *dir, dab_proof_load_info *info, dab_err *err);

/*
** Appends one line to the file at path, in one write, then flushes it:
** the file grows by whole lines, and a record costs its own bytes.  A
** missing file is created whole (header, may be NULL, then the line: a
** temporary file renamed).  A file whose last line was cut (a crash or a
** full disk mid-write; readers skip such a tail) is rewritten the same
** way with that tail turned into a "# torn line" comment, so that it can
** never join the new line into a different record.
** RETURN: DAB_OK or DAB_EIO (a failed write is truncated away).
** NOTES: one writer per file: concurrent runs use distinct files.
*/
dab_status dab_proof_append_line(const char *path, const char *header, const char *line, dab_err *err);

/* Header comment of a records file (several '#' lines, newline-terminated). */
const char *dab_proof_rec_header(void);

#endif
