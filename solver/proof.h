/*
** proof.h: divisible proofs: a claim about a position split into an
** AND/OR tree of independent subproblems, recorded result by result.
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_PROOF_H
#define DAB_PROOF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "game/board.h"
#include "solver/ab.h"
#include "symmetry/sym.h"

/*
** The tree.  A claim is "value(p) >= b" (GE) or "value(p) <= b" (LE);
** a value claim "value(p) = v" is the two claims GE v and LE v.  Values
** are Wilson's (ab.h): a move completing k >= 1 boxes is worth
** k + value(child), any other move -value(child).  So, at a node of
** depth d < D (D = the split depth):
**
**   GE b   OR  over the moves m:  capture k:  child GE b-k
**                                  otherwise:  child LE -b
**   LE b   AND over the moves m:  capture k:  child LE b-k
**                                  otherwise:  child GE -b
**
**        root LE 0 (AND)                      root GE 0 (OR)
**       /      |      \                      /     :     :
**   m1:GE 0  m2:GE 0  ...                m1:LE 0  (m2, m3: fallbacks,
**   (OR)     (OR)                         (AND)     tried only when m1
**    |        |                          /  |  \    is refuted)
**   ...      ...                      leaves at depth D
**
** Every position is replaced by its canonical key (dab_sym_canon64 with
** the border-line equivalence), so the children of a node are deduplicated
** by key; bounds are moved to the value's parity (value == open boxes mod
** 2) and a claim outside [-n, n] is decided at once.  The moves of a node
** are ordered by a fixed rule of the geometry alone: captures first (most
** boxes first), then moves that put no third side on a box, then
** sacrifices; centre-out within each group, lower id first on ties.
** An OR node tries its candidates in that order: the first one not
** refuted is the active one; a later one becomes active only when the
** records refute every earlier one.  Leaves are the claims at depth D,
** and the OR (GE) nodes at depth D-1: there the search picks its own
** move, which beats the fixed order and needs no fallback.
**
** So the tree is a function of (root, claim, depth) and of the recorded
** results alone: any machine rebuilds it, and results recorded anywhere
** combine.  A record about ANY node (not only leaves) decides that node,
** so a subtree proved directly needs no split.
**
** Records.  A record is one proved subresult: a claim about a canonical
** position and whether the search proved or refuted it.  Each implies a
** bound on the value: proved GE b -> value >= b; refuted GE b ->
** value <= b-2 (parity); proved LE b -> value <= b; refuted LE b ->
** value >= b+2.  A search's fail-soft result may prove a stronger bound
** of the same direction (refuted GE +2 with fail-soft -4: value <= -4);
** the record then carries that one.  The proof keeps, per key, the interval of every bound
** recorded, and a node is decided when that interval decides its claim.
** The text format of a record line (docs/proofs.md):
**
**   4x5:0000000000000000000000000001000000000000000000000 <=+0 proved <=+0 nodes=18 ...
**   |POSITION (RxC:DBN, canonical)                        |CLAIM|RESULT|BOUND|key=value...
**
** Thread safety: a dab_proof object is used by one thread at a time;
** distinct objects are independent.  The text of records and the files of
** a proof directory, and the search of one claim: proof/records.h.
*/

typedef enum { DAB_PROOF_GE = 0, DAB_PROOF_LE = 1 } dab_proof_dir;
typedef enum { DAB_PROOF_OPEN = 0, DAB_PROOF_PROVED = 1, DAB_PROOF_REFUTED = 2 } dab_proof_state;

/* What is to be proved: the root, its claim and the split depth. */
typedef struct dab_proof_spec {
  int rows, cols;
  uint64_t root;        /* drawn lines of the root position */
  bool has_ge, has_le;  /* the claim: value >= ge_bound and/or value <= le_bound */
  int ge_bound, le_bound;
  int depth;            /* split depth D (plies; 0 = the root is the one leaf) */
} dab_proof_spec;

/* One claim at a node of the tree (pos is a canonical key). */
typedef struct dab_proof_claim {
  uint64_t pos;
  int dir;              /* dab_proof_dir */
  int bound;
  int depth;
  uint64_t group;       /* the subtree it was listed under: the position of its
                           ancestor two plies above the leaves (depth - 2, at
                           least 1), or pos for claims that high; a split over
                           machines keeps a subtree's claims together, so one
                           warm table serves them (dab_proof_eval sets it) */
} dab_proof_claim;

/* One recorded subresult (one line of a records file). */
typedef struct dab_proof_rec {
  uint64_t pos;         /* canonical key */
  int dir, bound;       /* the claim searched */
  bool proved;          /* true: the claim holds; false: refuted */
  bool has_fs;          /* fs_lower/fs_value hold a fail-soft bound at least
                           as strong as the one proved/refuted implies */
  bool fs_lower;        /* value >= fs_value (else value <= fs_value) */
  int fs_value;
  uint64_t nodes;
  double seconds;       /* wall time of the search */
  int threads;
  char date[24];        /* ISO 8601 UTC, e.g. 2026-11-22T05:40:01Z */
  char host[48];
  int source;           /* index of the file it was read from (-1: none) */
  int line;             /* its line number there */
} dab_proof_rec;

/* A record's CPU time: its seconds x its threads (1 when not recorded). */
static inline double dab_proof_rec_cpu(const dab_proof_rec *r) {
  return r->seconds * (r->threads > 0 ? r->threads : 1);
}

/* The state of the whole proof, from dab_proof_eval. */
typedef struct dab_proof_summary {
  int state;                    /* dab_proof_state of the root claim */
  uint64_t leaves_open;         /* distinct open leaves of the active tree */
  uint64_t used_proved;         /* records the active tree uses (proved part) */
  uint64_t records;             /* records held */
  uint64_t refuted;             /* records that refute their claim */
  double seconds;               /* sum of the records' seconds */
  double cpu_seconds;           /* sum of seconds * threads */
  double given_up_cpu_seconds;  /* seconds * threads of the searches given up
                                   ("# open" notes): spent, but no record shows it */
  double median_seconds;        /* median seconds of a record (0: none) */
  uint64_t tree_nodes;          /* tree nodes visited */
} dab_proof_summary;

typedef struct dab_proof dab_proof;

/*
** Creates an empty proof (no records) for spec.
** RETURN: the proof, or NULL with a message in err (*st, if non-NULL,
** gets DAB_EBOARD for a board over 64 lines, DAB_EINPUT for a bad spec:
** no claim, depth outside 0..DAB_PROOF_MAX_DEPTH, root lines off the
** board; DAB_ENOMEM).
*/
#define DAB_PROOF_MAX_DEPTH 12
dab_proof *dab_proof_new(const dab_proof_spec *spec, dab_status *st, dab_err *err);
void dab_proof_free(dab_proof *pf);

/* Forgets every record, note and source, as if pf were new: the spec, the
** geometry and the symmetry tables (the costly part of dab_proof_new) are
** kept, so one handle can load directory after directory.  Cannot fail. */
void dab_proof_clear(dab_proof *pf);

const dab_geom *dab_proof_geom(const dab_proof *pf);
const dab_proof_spec *dab_proof_get_spec(const dab_proof *pf);

/* Canonical key of p (border equivalence on), as the tree uses it. */
uint64_t dab_proof_canon(const dab_proof *pf, uint64_t p);

/*
** Adds a record (r->pos is canonicalised first).
** RETURN: DAB_OK; DAB_ECORRUPT when it contradicts the records already
** held for its position (then it is not added: err names both).
*/
dab_status dab_proof_add(dab_proof *pf, const dab_proof_rec *r, dab_err *err);

/* The bound record r implies (its fail-soft bound when it has one, at the
** value's parity): value >= *v when *lower, else value <= *v.  Cannot fail. */
void dab_proof_rec_bound(const dab_proof *pf, const dab_proof_rec *r, bool *lower, int *v);

/* Records held, in the order added.  RETURN: the array; *n its length. */
const dab_proof_rec *dab_proof_records(const dab_proof *pf, size_t *n);

/* The interval [*lo, *hi] the records give for position p (canonicalised);
** [-n, n] when there is none.  RETURN: true if some record names p. */
bool dab_proof_bounds(const dab_proof *pf, uint64_t p, int *lo, int *hi);

/*
** Evaluates the tree against the records.
** PARAMETERS: sum receives the summary; open (may be NULL) receives up to
** max_open open leaves, in depth-first order of the tree (the order in
** which a run solves them).
** RETURN: DAB_OK, or DAB_ENOMEM.
** NOTES: cost grows with the active tree (about branching^(D/2) nodes).
*/
dab_status dab_proof_eval(dab_proof *pf, dab_proof_summary *sum, dab_proof_claim *open, size_t max_open,
                          size_t *nopen, dab_err *err);

/*
** The open inner nodes at the given depth of the active tree (nodes that
** are split, not leaves), in depth-first order: the first one holds the
** first open leaf below it.  A run may try such a node directly (one
** search for the whole subtree) before solving its leaves.
** RETURN: DAB_OK (*n nodes in out, at most max), or DAB_ENOMEM.
*/
dab_status dab_proof_open_at(dab_proof *pf, int depth, dab_proof_claim *out, size_t max, size_t *n, dab_err *err);

/* ---- Text ------------------------------------------------------------- */

/* "POS CLAIM" of c, e.g. "3x3:0110... >=+1", into buf (DAB_MAX_LINES + 40
** bytes hold any).  RETURN: buf. */
char *dab_proof_claim_label(const dab_proof *pf, const dab_proof_claim *c, char *buf, size_t len);

/* Writes ">=+2" / "<=-1" into buf (>= 8 bytes).  RETURN: buf. */
char *dab_proof_claim_text(int dir, int bound, char *buf);

/* Parses ">=+2" / "<=-1" (sign optional, |B| <= 100).  RETURN: false
** when t is not such a claim (*dir may then be written, *bound is not). */
bool dab_proof_parse_claim_tok(const char *t, int *dir, int *bound);

/*
** "POSITION CLAIM" of a record line or of a note: a position of pf's
** board (canonicalised into *pos) and >=B or <=B within its box count.
** RETURN: DAB_OK, or DAB_EINPUT with what is wrong.
*/
dab_status dab_proof_parse_pos_claim(const dab_proof *pf, const char *pos_text, const char *claim_text, uint64_t *pos,
                                     int *dir, int *bound, dab_err *err);

/*
** Makes later dab_proof_load_dir calls (proof/records.h) skip the record lines and "# open"
** notes dated after `date` (their date= field, ISO 8601 UTC, compared as
** text: "2026-11-22T22:26:00Z", or any prefix of one), as if they had not
** been written yet; lines without a date are kept.  NULL or "" lifts the
** limit.
** NOTES: shows the proof as it stood at that date: what a measured rate of
** progress needs (open leaves then and now, and the work in between).
*/
void dab_proof_set_until(dab_proof *pf, const char *date);

/* dab_proof_set_until's date ("" when there is no limit). */
const char *dab_proof_until(const dab_proof *pf);

/*
** How long a search of claim c's whole subtree ran before it was given up
** (`dab solve --proof --direct`), as noted by "# open direct" lines of the
** records files loaded so far.
** RETURN: the longest such time in seconds, 0 when none is noted.
** NOTES: lets a run skip a direct attempt that an earlier run already
** spent as long on; the notes never prove anything.
*/
double dab_proof_gave_up(const dab_proof *pf, const dab_proof_claim *c);

/*
** The i-th "# open direct" note loaded (dab_proof_note), for estimates of
** what the direct searches cost.
** PARAMETERS: i from 0; c, seconds, threads receive the note's claim (its
** depth and group are not set), its seconds and its threads (1 when the
** note does not say).
** RETURN: false (nothing written) when there is no note i.
*/
bool dab_proof_direct_note(const dab_proof *pf, size_t i, dab_proof_claim *c, double *seconds, int *threads);

/*
** Reads one "# open" comment line of a records file into pf's notes, as
** dab_proof_load_dir does for every such line:
**   "# open direct POS CLAIM abandoned after seconds=S ..."  a search of
**       that whole subtree was given up (dab_proof_gave_up);
**   "# open POS CLAIM abandoned after seconds=S ..."  a search of that
**       leaf was given up: from now on the leaf is split further, two
**       plies for a GE claim (OR, then AND), one for an LE claim, and its
**       descendants there are the leaves (and can be split again).
** Either may end with " first=M,M,..." and " last=M,..." (lines of POS):
** the node's children by those moves go to the front / back of its fixed
** order (dab_proof_order_hint); a split note's hint wins over a direct
** note's, and of several direct notes the longest search's.
** PARAMETERS: line, without its newline.
** RETURN: true when the line was a note that parsed, false otherwise
** (nothing changes).
** NOTES: a split changes which leaves are open, so the tree is a function
** of the records and these notes; every machine that reads the same
** directory still walks the same tree.  A note never proves anything.
*/
bool dab_proof_note(dab_proof *pf, const char *line);

/*
** The move-order hint for claim c (pos canonical) after a search of it was
** given up: what the search's table already knows about c's children.
** Writes " first=M,... last=M,..." to buf (lines of c->pos): for a GE
** claim (an OR node), first the moves whose child's claim the table
** proves, last those it refutes; for an LE claim (an AND node) the other
** way round, so the child that refutes the node comes first.
** RETURN: the length written (0, and buf empty, when the table knows
** nothing); a hint too long for len is cut at a whole move, which leaves
** it true.
** NOTES: appended to the "# open" note, the hint orders the node's
** children (dab_proof_note), so an OR node does not start with a
** candidate the search already refuted, nor an AND node with a child the
** search already proved.  It changes only the order, never a result.
*/
size_t dab_proof_order_hint(const dab_proof *pf, const dab_ab *ab, const dab_proof_claim *c, char *buf,
                            size_t len);

/* File name of source index i (NULL if none). */
const char *dab_proof_source_name(const dab_proof *pf, int i);

/* Adds name (malloc'd; pf owns it from now on) to the sources that
** records point at (dab_proof_rec.source).  RETURN: its index, or -1 when
** out of memory (name then stays the caller's). */
int dab_proof_add_source(dab_proof *pf, char *name);

#endif
